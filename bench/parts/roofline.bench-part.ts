/**
 * The machine's limit for this work: dense fp32 MatMul GFLOP/s measured through ONNX Runtime (the same
 * onnxruntime-node build mlrb-eval loads), on a MatMul-only graph written with the project's ONNX writer,
 * at the shapes a GPT-2-small forward pass multiplies, on all cores and on one. The best all-core figure
 * is the roofline the model's achieved GFLOP/s is compared against.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { makeTensor, writeModelFiles } from '../../test/support/model-builders/onnx-builder.js';
import { seededRandom } from '../../test/support/random-requests.js';

export interface MatMulPoint {
  readonly m: number;
  readonly k: number;
  readonly n: number;
  /** One session using every core. */
  readonly gflops: number;
  /** One session on one intra-op thread (mlrb-eval runs one such pass per core at once). */
  readonly singleThreadGflops: number;
}

function writeMatMulModel(dir: string, m: number, k: number, n: number): string {
  const random = seededRandom(m * 31 + k * 7 + n);
  return writeModelFiles(path.join(dir, `matmul_${m}_${k}_${n}`), {
    irVersion: 8,
    opsetImports: [{ domain: '', version: 17 }],
    graph: {
      name: 'matmul',
      nodes: [{ opType: 'MatMul', inputs: ['a', 'b'], outputs: ['c'] }],
      initializers: [
        makeTensor(
          'b',
          'float32',
          [k, n],
          Array.from({ length: k * n }, () => random() - 0.5),
        ),
      ],
      inputs: [{ name: 'a', elementType: 'float32', shape: ['m', k] }],
      outputs: [{ name: 'c', elementType: 'float32', shape: ['m', n] }],
    },
  });
}

/**
 * GFLOP/s of one session running the MatMul with `threads` intra-op threads. (Several onnxruntime-node
 * sessions do not run at once from one JS thread, so per-core concurrency cannot be measured this way.)
 */
async function measureMatMul(modelPath: string, m: number, k: number, n: number, threads: number): Promise<number> {
  const opened = [await ort.InferenceSession.create(modelPath, { executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: threads })];
  const random = seededRandom(m + n);
  const a = new ort.Tensor(
    'float32',
    Float32Array.from({ length: m * k }, () => random() - 0.5),
    [m, k],
  );
  const loop = async (session: ort.InferenceSession, until: number): Promise<number> => {
    let runs = 0;
    while (performance.now() < until || runs < 3) {
      await session.run({ a });
      runs += 1;
    }
    return runs;
  };
  await Promise.all(opened.map((session) => loop(session, performance.now() + 300)));
  const started = performance.now();
  const runs = await Promise.all(opened.map((session) => loop(session, started + 1500)));
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(opened.map((session) => session.release()));
  return (2 * m * k * n * runs.reduce((sum, count) => sum + count, 0)) / seconds / 1e9;
}

/** GPT-2-small's projection shapes at 512 tokens per pass (QKV, MLP up, MLP down, LM head over 64 rows). */
export async function runRooflineBenchmarks(threads?: number): Promise<MatMulPoint[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-roofline-'));
  try {
    const shapes: [number, number, number][] = [
      [512, 768, 2304],
      [512, 768, 3072],
      [512, 3072, 768],
      [1024, 768, 3072],
      [64, 768, 50_304],
    ];
    const cores = threads ?? availableParallelism();
    const points: MatMulPoint[] = [];
    for (const [m, k, n] of shapes) {
      const modelPath = writeMatMulModel(dir, m, k, n);
      points.push({ m, k, n, gflops: await measureMatMul(modelPath, m, k, n, cores), singleThreadGflops: await measureMatMul(modelPath, m, k, n, 1) });
    }
    return points;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
