/**
 * Phi-2-shaped model metadata without any weights: the tensor and node lists a Phi-2 export has (HF names
 * in PyTorch [out, in] layout read by Gemm transB=1, or optimum-style anonymous MatMul weights [in, out]
 * named by their nodes), for checks that only read metadata. Sizes from microsoft/phi-2's config.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NativeModelInfo, NativeNodeInfo, NativeTensorInfo } from '../../../src/native/binding.js';

export const PHI2 = { hidden: 2560, layers: 32, heads: 32, headDim: 80, intermediate: 10240, vocab: 51200, maxPositions: 2048 } as const;
/** Phi-2's parameter count, as transformers reports it. */
export const PHI2_PARAMETERS = 2_779_683_840;

export interface Phi2Options {
  style?: 'hf-gemm' | 'optimum-matmul';
  /** Heads kept per layer (default all). */
  heads?: (layer: number) => number;
  /** FFN channels kept per layer (default all). */
  ffn?: (layer: number) => number;
  /** Layers left out (keeping the others' indices). */
  removed?: readonly number[];
  dataType?: number; // default 10 (float16)
}

export function phi2ConfigFile(directory: string): string {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      model_type: 'phi',
      hidden_size: PHI2.hidden,
      intermediate_size: PHI2.intermediate,
      num_attention_heads: PHI2.heads,
      num_hidden_layers: PHI2.layers,
      num_key_value_heads: PHI2.heads,
      vocab_size: PHI2.vocab,
      max_position_embeddings: PHI2.maxPositions,
      partial_rotary_factor: 0.4,
      tie_word_embeddings: false,
    }),
  );
  return file;
}

export function phi2Info(options: Phi2Options = {}): NativeModelInfo {
  const style = options.style ?? 'hf-gemm';
  const dataType = options.dataType ?? 10;
  const bytesPerElement = dataType === 1 ? 4 : 2;
  const tensors: NativeTensorInfo[] = [];
  const nodes: NativeNodeInfo[] = [];
  let counter = 0;
  const tensor = (name: string, dims: number[]): string => {
    const elementCount = dims.reduce((product, dim) => product * dim, 1);
    tensors.push({
      name,
      dataType,
      dims,
      location: 'external',
      source: 'initializer',
      graph: '',
      file: '/nonexistent/phi2.onnx_data',
      offset: 0,
      length: elementCount * bytesPerElement,
      elementCount,
    });
    return name;
  };
  const node = (opType: string, name: string, inputs: string[], intAttributes: Record<string, number> = {}): string => {
    const output = `value_${counter++}`;
    nodes.push({ opType, domain: '', name, graph: '', inputs, outputs: [output], intAttributes });
    return output;
  };
  const linear = (input: string, module: string, inDim: number, outDim: number): string => {
    if (style === 'hf-gemm') {
      return node('Gemm', `${module}/Gemm`, [input, tensor(`${module}.weight`, [outDim, inDim]), tensor(`${module}.bias`, [outDim])], { transB: 1 });
    }
    const path = `/${module
      .split('.')
      .slice(0, -1)
      .join('.')
      .replace(/\.(\d+)\./, '.$1/')
      .replace(/\.(self_attn|mlp)\./, '/$1/')}/${module.split('.').at(-1)}`;
    const product = node('MatMul', `${path}/MatMul`, [input, tensor(`onnx::MatMul_${counter}`, [inDim, outDim])]);
    return node('Add', `${path}/Add`, [tensor(`onnx::Add_${counter}`, [outDim]), product]);
  };
  const { hidden: H, vocab: V } = PHI2;
  let state = node('Gather', '/model/embed_tokens/Gather', [tensor('model.embed_tokens.weight', [V, H]), 'input_ids']);
  for (let layer = 0; layer < PHI2.layers; layer++) {
    if (options.removed?.includes(layer)) continue;
    const prefix = `model.layers.${layer}`;
    const width = (options.heads?.(layer) ?? PHI2.heads) * PHI2.headDim;
    const ffn = options.ffn?.(layer) ?? PHI2.intermediate;
    const normed = node('LayerNormalization', `/model/layers.${layer}/input_layernorm/LayerNormalization`, [
      state,
      tensor(`${prefix}.input_layernorm.weight`, [H]),
      tensor(`${prefix}.input_layernorm.bias`, [H]),
    ]);
    const attention = ['q_proj', 'k_proj', 'v_proj'].map((projection) => linear(normed, `${prefix}.self_attn.${projection}`, H, width));
    const attended = linear(node('Attention', `/model/layers.${layer}/self_attn/core`, attention), `${prefix}.self_attn.dense`, width, H);
    const mlp = linear(node('Gelu', `/model/layers.${layer}/mlp/act`, [linear(normed, `${prefix}.mlp.fc1`, H, ffn)]), `${prefix}.mlp.fc2`, ffn, H);
    state = node('Add', `/model/layers.${layer}/residual`, [state, attended, mlp]);
  }
  const final = node('LayerNormalization', '/model/final_layernorm/LayerNormalization', [
    state,
    tensor('model.final_layernorm.weight', [H]),
    tensor('model.final_layernorm.bias', [H]),
  ]);
  linear(final, 'lm_head', H, V);
  return {
    path: '/nonexistent/phi2.onnx',
    fileSize: 1,
    irVersion: 8,
    producerName: 'synthetic',
    producerVersion: '',
    graphName: 'phi2',
    opsets: [{ domain: '', version: 17 }],
    inputs: [{ name: 'input_ids', elemType: 7, shape: ['batch', 'sequence'] }],
    outputs: [{ name: nodes.at(-1)!.outputs[0]!, elemType: dataType, shape: ['batch', 'sequence', V] }],
    tensors,
    nodes,
    externalFiles: [],
  };
}
