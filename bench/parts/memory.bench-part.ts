/**
 * Memory and time of LM-head slicing, and peak RSS against the target (weights + 20 % + 300 MB). Each
 * configuration runs in a fresh child process so peaks do not leak from one into the next.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelInput } from '../../src/engine/model-input.js';

export interface MemoryRow {
  readonly label: string;
  readonly sliceLmHead: boolean;
  readonly batchSize: number | 'auto';
  readonly seconds: number;
  readonly loadPeakMb: number;
  readonly afterLoadMb: number;
  readonly scoringPeakMb: number;
  readonly logitRows: number;
  readonly paddedTokens: number;
  readonly batches: number;
}

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'memory-child.ts');

export function runMemoryBenchmarks(
  modelPath: string,
  inputs: readonly ModelInput[],
  configs: readonly { sliceLmHead: boolean; batchSize: number | 'auto' }[],
): MemoryRow[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-memory-'));
  const inputsFile = path.join(dir, 'inputs.json');
  writeFileSync(inputsFile, JSON.stringify(inputs));
  try {
    return configs.map((config) => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', child, modelPath, inputsFile, JSON.stringify(config)], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`memory child failed: ${result.stderr}`);
      const line = result.stdout.trim().split('\n').pop() ?? '{}';
      const parsed = JSON.parse(line) as {
        loadPeakKb: number;
        afterLoadKb: number;
        scoringPeakKb: number;
        seconds: number;
        logitRows: number;
        paddedTokens: number;
        batches: number;
      };
      return {
        label: `${config.sliceLmHead ? 'sliced' : 'full logits'}, batch ${config.batchSize}`,
        ...config,
        seconds: parsed.seconds,
        loadPeakMb: parsed.loadPeakKb / 1024,
        afterLoadMb: parsed.afterLoadKb / 1024,
        scoringPeakMb: parsed.scoringPeakKb / 1024,
        logitRows: parsed.logitRows,
        paddedTokens: parsed.paddedTokens,
        batches: parsed.batches,
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
