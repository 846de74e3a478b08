/**
 * The tiny run whose results file lm-eval's own make_table rendered (scripts/lm_eval/render_table.py): the
 * generated tiny LM on every MMLU subject (4 questions each) plus two BLiMP paradigms named as lm-eval tasks.
 * It shows every depth lm-eval's tables have (mmlu, its categories, subjects) and tasks outside any group.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { writeTinyCausalLm } from './model-builders/tiny-causal-lm.js';
import { writeTinyBlimp, writeTinyMmlu } from './tiny-datasets.js';

export const TINY_RUN_TASKS = 'mmlu,blimp_adjunct_island,blimp_anaphor_gender_agreement';

export interface TinyRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly results: Record<string, unknown>;
}

export async function runTinyLmEvalFixture(extraArgs: readonly string[] = []): Promise<TinyRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-lm-eval-'));
  try {
    writeTinyCausalLm(path.join(dir, 'model'));
    writeTinyMmlu(path.join(dir, 'data', 'mmlu'));
    writeTinyBlimp(path.join(dir, 'data', 'blimp'), ['adjunct_island', 'anaphor_gender_agreement']);
    const output = path.join(dir, 'results.json');
    let stdout = '';
    let stderr = '';
    const sink = (append: (chunk: string) => void) => ({ write: (chunk: string) => (append(chunk), true) }) as unknown as NodeJS.WritableStream;
    const code = await main(
      [path.join(dir, 'model'), '--tasks', TINY_RUN_TASKS, '--data', path.join(dir, 'data'), '--output', output, '--no-cache', '--quiet', ...extraArgs],
      {
        stdout: sink((chunk) => (stdout += chunk)),
        stderr: sink((chunk) => (stderr += chunk)),
      },
    );
    const results = code === 0 ? (JSON.parse(readFileSync(output, 'utf8')) as Record<string, unknown>) : {};
    return { code, stdout, stderr, results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
