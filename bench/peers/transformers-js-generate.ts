/**
 * The transformers.js generation peer: AutoModelForCausalLM from a local folder (fp32, CPU, onnxruntime-node,
 * the same ORT build as ours) and the library's own `generate`, greedy. transformers.js 4.3.1 needs a graph
 * with past inputs: after the first step it feeds only the newest token (its use_cache setting is not read),
 * so it has no no-KV row.
 */
import { Tensor } from '@huggingface/transformers';
import type { GreedyDecoder } from './greedy-decoder.js';
import { loadTransformersJsModel } from './transformers-js-model.js';

const int64Matrix = (rows: readonly (readonly number[])[], width: number, value?: bigint): Tensor =>
  new Tensor('int64', BigInt64Array.from(rows.flatMap((row) => row.map((id) => value ?? BigInt(id)))), [rows.length, width]);

export async function createTransformersJsDecoder(modelDir: string, threads?: number): Promise<GreedyDecoder> {
  const model = await loadTransformersJsModel(modelDir, threads);
  return {
    async decode(prompts, maxNewTokens) {
      const width = prompts[0]?.length ?? 0;
      const output = (await model.generate({
        input_ids: int64Matrix(prompts, width),
        attention_mask: int64Matrix(prompts, width, 1n),
        max_new_tokens: maxNewTokens,
        do_sample: false,
        eos_token_id: [], // an EOS criterion that matches no id: every row decodes maxNewTokens
      })) as Tensor;
      return (output.tolist() as bigint[][]).map((row) => row.slice(width).map(Number));
    },
    async dispose() {
      await model.dispose();
    },
  };
}
