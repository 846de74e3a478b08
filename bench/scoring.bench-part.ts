/**
 * Scored requests/s and tokens/s for BLiMP and MMLU 0-shot: mlrb-eval's native core against the naive
 * onnxruntime-node JS loop and transformers.js, on the same requests (same token ids) in the same run.
 * Every peer's logliks are compared with mlrb-eval's, so a fast wrong answer cannot pass as a win.
 */
import { Bench } from 'tinybench';
import { scoreModelInputs } from '../src/engine/score-requests.js';
import { loadModel } from '../src/model/onnx-model.js';
import type { BenchModel } from './models/bench-models.js';
import type { Workload } from './parts/workloads.js';
import { usefulFlops } from './parts/workloads.js';
import { createNaiveScorer } from './peers/naive-ort-js.js';
import { createTransformersJsScorer } from './peers/transformers-js.js';

/** mlrb-eval with attention as the exported graph's nodes (loadModel({ cpuFusion: false }), CLI --no-cpu-fusion). */
export const UNFUSED_SCORER = 'mlrb-eval --no-cpu-fusion';
/** The scorers that are mlrb-eval itself, as opposed to peers. */
export const OUR_SCORERS = ['mlrb-eval', UNFUSED_SCORER] as const;

export interface ThroughputRow {
  readonly model: string;
  readonly workload: string;
  readonly scorer: string;
  readonly requests: number;
  readonly tokens: number;
  readonly medianSeconds: number;
  readonly requestsPerSecond: number;
  readonly tokensPerSecond: number;
  /** Useful model FLOPs (unique rows, no padding, LM head at scored positions) per second. */
  readonly usefulGflops: number;
  /** Largest |loglik − mlrb-eval's loglik| over the workload. */
  readonly maxAbsDiff: number;
}

export interface ScoringBenchOptions {
  readonly model: BenchModel;
  readonly workloads: readonly Workload[];
  readonly iterations: number;
  readonly threads?: number;
  /** transformers.js rows per forward pass. */
  readonly peerBatchSize: number;
}

export async function runScoringBenchmarks(options: ScoringBenchOptions): Promise<ThroughputRow[]> {
  const { model: benchModel, workloads } = options;
  const model = await loadModel({ model: benchModel.modelPath, threads: options.threads });
  const unfused = await loadModel({ model: benchModel.modelPath, threads: options.threads, cpuFusion: false });
  const naive = await createNaiveScorer(benchModel.modelPath);
  const transformersJs = await createTransformersJsScorer(benchModel.dir, {
    batchSize: options.peerBatchSize,
    ...(options.threads ? { threads: options.threads } : {}),
  });
  const logliks = new Map<string, number[]>();
  // One untimed run per scorer and workload, whatever the iteration count: a session's first run pays for
  // allocations and first touches of its weights, which would otherwise land on whichever scorer runs first.
  const bench = new Bench({ iterations: options.iterations, time: 0, warmupIterations: 1, warmupTime: 0 });
  for (const workload of workloads) {
    bench.add(`${workload.name} | mlrb-eval`, async () => {
      const { results } = await scoreModelInputs(model, workload.inputs);
      logliks.set(
        `${workload.name} | mlrb-eval`,
        results.map((result) => result.loglik),
      );
    });
    bench.add(`${workload.name} | ${UNFUSED_SCORER}`, async () => {
      const { results } = await scoreModelInputs(unfused, workload.inputs);
      logliks.set(
        `${workload.name} | ${UNFUSED_SCORER}`,
        results.map((result) => result.loglik),
      );
    });
    bench.add(`${workload.name} | naive ORT-JS loop`, async () => {
      logliks.set(`${workload.name} | naive ORT-JS loop`, await naive.scoreAll(workload.inputs));
    });
    bench.add(`${workload.name} | transformers.js`, async () => {
      logliks.set(`${workload.name} | transformers.js`, await transformersJs.scoreAll(workload.inputs));
    });
  }
  await bench.run();
  model.dispose();
  unfused.dispose();
  await naive.dispose();
  await transformersJs.dispose();
  return bench.tasks.map((task) => {
    const [workloadName = '', scorer = ''] = task.name.split(' | ');
    const workload = workloads.find((candidate) => candidate.name === workloadName);
    const inputs = workload?.inputs ?? [];
    const tokens = inputs.reduce((sum, input) => sum + input.inputTokens.length, 0);
    const result = task.result;
    // The median run: this VM's neighbours slow single runs down by up to a third, which a mean carries
    // into whichever scorer they hit.
    const medianSeconds = result && 'latency' in result ? (result.latency.p50 ?? result.latency.mean) / 1000 : Number.NaN;
    const ours = logliks.get(`${workloadName} | mlrb-eval`) ?? [];
    const theirs = logliks.get(task.name) ?? [];
    const maxAbsDiff = theirs.reduce((max, value, index) => Math.max(max, Math.abs(value - (ours[index] ?? Number.NaN))), 0);
    return {
      model: benchModel.name,
      workload: workloadName,
      scorer,
      requests: inputs.length,
      tokens,
      medianSeconds,
      requestsPerSecond: inputs.length / medianSeconds,
      tokensPerSecond: tokens / medianSeconds,
      usefulGflops: usefulFlops(inputs, benchModel.dims) / medianSeconds / 1e9,
      maxAbsDiff,
    };
  });
}
