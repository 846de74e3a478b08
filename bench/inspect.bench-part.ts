/**
 * Inspect and zero-scan benchmarks on a multi-GB external-data model generated on the fly: a Phi-2-shaped
 * graph (fp16 layers, fp32 embedding and LM head; about 6 GB by default) whose weights are streamed to
 * disk in 64 MiB writes, never held in memory, and removed afterwards. Reports the inspect time (metadata
 * only, with the RSS change to show memory stays flat) and the zero scan's GB/s on 1 thread and on all.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { float32ToFloat16Bits, serializeModel, type NodeProto, type TensorElementType, type TensorProto } from '../test/support/model-builders/onnx-builder.js';
import { inspectModel } from '../src/inspect/report/inspect-report.js';
import { readModelGraph } from '../src/inspect/graph/model-graph.js';
import { scanTensorZeros } from '../src/inspect/graph/zero-scan.js';
import { formatBytes } from '../src/inspect/units.js';
import { loadBinding } from '../src/native/binding.js';

export interface InspectBenchOptions {
  /** Approximate size of the generated weights. Default 6e9 (env MLRB_BENCH_INSPECT_BYTES overrides). */
  readonly targetBytes?: number;
  readonly log?: (line: string) => void;
}

export interface InspectBenchResult {
  readonly modelBytes: number;
  readonly tensors: number;
  readonly inspectMeanMs: number;
  readonly inspectRssDeltaBytes: number;
  readonly zeroScanGBps: number;
  readonly zeroScanGBpsSingleThread: number;
  readonly threads: number;
}

const PHI2 = { hidden: 2560, intermediate: 10240, vocab: 51200 } as const;
const WRITE_CHUNK = 64 << 20;

/**
 * One 64 MiB write buffer per dtype: a repeating pattern of nonzero values with sparse exact zeros (the
 * scan's work does not depend on the values). One 64 KiB tile is computed and copied, which keeps
 * generation far faster than the disk.
 */
function patternChunk(type: 'float16' | 'float32'): Uint8Array {
  const width = type === 'float16' ? 2 : 4;
  const tile = new Uint8Array(64 << 10);
  const view = new DataView(tile.buffer);
  for (let index = 0; index < tile.length / width; index++) {
    const value = index % 1021 === 0 ? 0 : ((index % 97) - 48) / 64 || 0.5;
    if (width === 2) view.setUint16(index * 2, float32ToFloat16Bits(value), true);
    else view.setFloat32(index * 4, value, true);
  }
  const chunk = new Uint8Array(WRITE_CHUNK);
  for (let offset = 0; offset < WRITE_CHUNK; offset += tile.length) chunk.set(tile, offset);
  return chunk;
}

/** Writes model.onnx + weights.bin into `directory`; returns the model path and weight bytes. */
function writePhi2Shaped(directory: string, targetBytes: number): { modelPath: string; bytes: number; tensors: number } {
  const { hidden: H, intermediate: I, vocab: V } = PHI2;
  const layerBytes = 2 * (4 * H * H + 2 * H * I); // fp16 attention + MLP matrices
  const layers = Math.max(1, Math.round((targetBytes - 2 * 4 * V * H) / layerBytes));
  const specs: { name: string; type: 'float16' | 'float32'; dims: number[] }[] = [{ name: 'model.embed_tokens.weight', type: 'float32', dims: [V, H] }];
  const nodes: NodeProto[] = [{ opType: 'Gather', inputs: ['model.embed_tokens.weight', 'input_ids'], outputs: ['h_0'] }];
  for (let layer = 0; layer < layers; layer++) {
    const matrices: [string, number, number][] = [
      ['self_attn.q_proj', H, H],
      ['self_attn.k_proj', H, H],
      ['self_attn.v_proj', H, H],
      ['self_attn.dense', H, H],
      ['mlp.fc1', H, I],
      ['mlp.fc2', I, H],
    ];
    for (const [module, inDim, outDim] of matrices) {
      const name = `model.layers.${layer}.${module}.weight`;
      specs.push({ name, type: 'float16', dims: [inDim, outDim] });
      nodes.push({ opType: 'MatMul', name: `/model/layers.${layer}/${module}/MatMul`, inputs: [`h_${layer}`, name], outputs: [`${name}_out`] });
    }
    nodes.push({ opType: 'Add', inputs: [`h_${layer}`, `model.layers.${layer}.mlp.fc2.weight_out`], outputs: [`h_${layer + 1}`] });
  }
  specs.push({ name: 'lm_head.weight', type: 'float32', dims: [H, V] });
  nodes.push({ opType: 'MatMul', inputs: [`h_${layers}`, 'lm_head.weight'], outputs: ['logits'] });

  const chunks = { float16: patternChunk('float16'), float32: patternChunk('float32') };
  const descriptor = openSync(join(directory, 'weights.bin'), 'w');
  const initializers: TensorProto[] = [];
  let offset = 0;
  try {
    for (const spec of specs) {
      const length = spec.dims.reduce((product, dim) => product * dim, 1) * (spec.type === 'float16' ? 2 : 4);
      for (let written = 0; written < length; ) written += writeSync(descriptor, chunks[spec.type], 0, Math.min(WRITE_CHUNK, length - written));
      initializers.push({
        name: spec.name,
        elementType: spec.type as TensorElementType,
        dims: spec.dims,
        external: { location: 'weights.bin', offset, length },
      });
      offset += length;
    }
  } finally {
    closeSync(descriptor);
  }
  const modelPath = join(directory, 'model.onnx');
  writeFileSync(
    modelPath,
    serializeModel({
      irVersion: 8,
      opsetImports: [{ domain: '', version: 17 }],
      producerName: 'mlrb-eval-bench',
      graph: {
        name: 'phi2_shaped',
        nodes,
        initializers,
        inputs: [{ name: 'input_ids', elementType: 'int64', shape: ['batch', 'sequence'] }],
        outputs: [{ name: 'logits', elementType: 'float32', shape: ['batch', 'sequence', V] }],
      },
    }),
  );
  return { modelPath, bytes: offset, tensors: specs.length };
}

const meanMs = (bench: Bench, name: string): number => {
  const result = bench.getTask(name)?.result;
  if (!result || result.error) throw result?.error ?? new Error(`benchmark ${name} did not run`);
  return result.latency.mean;
};

export async function runInspectBenchmarks(options: InspectBenchOptions = {}): Promise<InspectBenchResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const targetBytes = options.targetBytes ?? Number(process.env.MLRB_BENCH_INSPECT_BYTES ?? 6e9);
  const directory = mkdtempSync(join(tmpdir(), 'mlrb-inspect-bench-'));
  try {
    const started = performance.now();
    const model = writePhi2Shaped(directory, targetBytes);
    log(
      `inspect bench: wrote a ${formatBytes(model.bytes)} external-data model (${model.tensors} tensors) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    loadBinding(); // so the RSS change below is the inspection's, not the addon's own code
    const rssBefore = process.memoryUsage().rss;
    const report = await inspectModel(model.modelPath);
    const inspectRssDeltaBytes = process.memoryUsage().rss - rssBefore;
    if (report.tensorBytes !== model.bytes) throw new Error(`inspect found ${report.tensorBytes} weight bytes, the generator wrote ${model.bytes}`);

    const graph = await readModelGraph(model.modelPath);
    const threads = availableParallelism();
    const bench = new Bench({ name: 'inspect', iterations: 5, time: 0, warmup: false, throws: true });
    bench
      .add('inspect (metadata only)', async () => {
        await inspectModel(model.modelPath);
      })
      .add(`zero scan, ${threads} threads`, async () => {
        await scanTensorZeros(graph.tensors, { threads });
      })
      .add('zero scan, 1 thread', async () => {
        await scanTensorZeros(graph.tensors, { threads: 1 });
      });
    await bench.run();
    for (const task of bench.tasks) {
      log(
        `  ${task.name}: mean ${(task.result?.latency.mean ?? Number.NaN).toFixed(2)} ms ± ${(task.result?.latency.rme ?? Number.NaN).toFixed(1)}% over ${task.runs} runs`,
      );
    }

    const gbPerSecond = (name: string): number => model.bytes / 1e9 / (meanMs(bench, name) / 1000);
    const result: InspectBenchResult = {
      modelBytes: model.bytes,
      tensors: model.tensors,
      inspectMeanMs: meanMs(bench, 'inspect (metadata only)'),
      inspectRssDeltaBytes,
      zeroScanGBps: gbPerSecond(`zero scan, ${threads} threads`),
      zeroScanGBpsSingleThread: gbPerSecond('zero scan, 1 thread'),
      threads,
    };
    log(
      `inspect: ${result.inspectMeanMs.toFixed(1)} ms for ${formatBytes(result.modelBytes)} (RSS change ${formatBytes(result.inspectRssDeltaBytes)}); ` +
        `zero scan: ${result.zeroScanGBps.toFixed(2)} GB/s on ${threads} threads, ${result.zeroScanGBpsSingleThread.toFixed(2)} GB/s on 1 (warm page cache)`,
    );
    return result;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
