/**
 * Where a forward pass of the 124M model spends its time, by operator type, from ONNX Runtime's own
 * profiler (one intra-op thread, as mlrb-eval runs each pass). It explains the distance to the MatMul
 * roofline: time outside the dense MatMuls runs far below it. The LM head (the graph's last MatMul) is
 * left out, since mlrb-eval runs it on a few gathered rows only.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';

export interface OpShare {
  readonly opType: string;
  readonly milliseconds: number;
  readonly share: number;
}

interface ProfileEvent {
  readonly cat?: string;
  readonly name?: string;
  readonly dur?: number;
  readonly args?: { readonly op_name?: string };
}

export async function runOpProfile(
  modelPath: string,
  rows: number,
  length: number,
  dims: { vocab: number; heads: number; hidden: number },
): Promise<OpShare[]> {
  const { vocab } = dims;
  const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-profile-'));
  try {
    const session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      intraOpNumThreads: 1,
      enableProfiling: true,
      profileFilePrefix: path.join(dir, 'profile'),
    });
    const ids = BigInt64Array.from({ length: rows * length }, (_, index) => BigInt((index * 7919) % vocab));
    const feeds: Record<string, ort.Tensor> = {};
    for (const name of session.inputNames) {
      if (name === 'input_ids') feeds[name] = new ort.Tensor('int64', ids, [rows, length]);
      else if (name === 'attention_mask') feeds[name] = new ort.Tensor('int64', new BigInt64Array(rows * length).fill(1n), [rows, length]);
      else feeds[name] = new ort.Tensor('float32', new Float32Array(0), [rows, dims.heads, 0, dims.hidden / dims.heads]); // empty past
    }
    for (let run = 0; run < 3; run += 1) await session.run(feeds, ['logits']);
    session.endProfiling();
    await session.release();
    const file = readdirSync(dir).find((name) => name.endsWith('.json'));
    if (!file) throw new Error('ONNX Runtime wrote no profile');
    const events = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as ProfileEvent[];
    const nodes = events.filter((event) => event.cat === 'Node' && event.name?.endsWith('_kernel_time'));
    const lastMatMul = nodes
      .filter((event) => event.args?.op_name === 'MatMul')
      .map((event) => event.name)
      .sort((a, b) => Number(/node_(\d+)/.exec(b ?? '')?.[1] ?? 0) - Number(/node_(\d+)/.exec(a ?? '')?.[1] ?? 0))[0];
    const byType = new Map<string, number>();
    for (const event of nodes) {
      if (event.name === lastMatMul) continue;
      const type = event.args?.op_name ?? 'unknown';
      byType.set(type, (byType.get(type) ?? 0) + (event.dur ?? 0) / 1000 / 3);
    }
    const total = [...byType.values()].reduce((sum, value) => sum + value, 0);
    return [...byType].map(([opType, milliseconds]) => ({ opType, milliseconds, share: milliseconds / total })).sort((a, b) => b.milliseconds - a.milliseconds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
