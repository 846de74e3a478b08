/**
 * mlrb-eval's whole command, as a user runs it: `node bin/mlrb-eval.js MODEL --suite S --data DIR --limit N`
 * on the compiled CLI (dist/), with the token cache off so tokenizing is timed (lm-eval tokenizes every run).
 * The command does all the work from the data files on: parquet/JSON reading, lm-eval's request
 * construction, tokenizing, scoring, metrics, the results JSON and per-request samples (read back here
 * for the exactness check against the peer).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoglikelihoodRequest } from '../../src/eval/instance.js';
import { requestKey, timedSpawn, type WholeCommandRun } from './whole-command.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(REPO, 'bin', 'mlrb-eval.js');
const COMPILED_MAIN = path.join(REPO, 'dist', 'cli', 'main.js');

const newestMtimeMs = (dir: string): number =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .reduce((newest, entry) => Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs), 0);

/**
 * The bin runs dist/, so dist/ must be the current source: compiled (npm run build:ts) when it is missing
 * or older than any file under src/. Returns what it did, for the report.
 */
export function ensureCompiledCli(): string {
  if (existsSync(COMPILED_MAIN) && statSync(COMPILED_MAIN).mtimeMs >= newestMtimeMs(path.join(REPO, 'src'))) return 'dist/ is current';
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(REPO, 'tsconfig.json')], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`compiling the CLI (tsc -p tsconfig.json) failed:\n${result.stdout}${result.stderr}`);
  return 'dist/ compiled from src/ (it was missing or stale)';
}

interface ResultsFile {
  readonly mlrb: { readonly scoring_time_s: number; readonly peak_rss_bytes: number; readonly attention_fused: boolean };
}
interface SampleLine {
  readonly arguments: readonly (readonly [string, string])[];
  readonly resps: readonly (readonly [readonly [number, boolean]])[];
}

export interface MlrbEvalRun extends WholeCommandRun {
  readonly attentionFused: boolean;
}

export function runMlrbEvalCommand(options: {
  readonly modelPath: string;
  readonly suite: 'mmlu' | 'blimp';
  readonly dataDir: string;
  readonly limit: number;
  /** The requests the peer scores, in its order: the samples' logliks are returned in this order. */
  readonly requests: readonly Pick<LoglikelihoodRequest, 'context' | 'continuation'>[];
}): MlrbEvalRun {
  const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-bench-cli-'));
  try {
    const resultsFile = path.join(dir, 'results.json');
    const samplesFile = path.join(dir, 'samples.jsonl');
    const args = [
      CLI,
      options.modelPath,
      '--suite',
      options.suite,
      '--data',
      options.dataDir,
      '--limit',
      String(options.limit),
      '--no-cache',
      '--quiet',
      '--output',
      resultsFile,
      '--log-samples',
      samplesFile,
      // The peer is lm-eval 0.4.13, whose HF backend puts BOS before contexts where the tokenizer adds one
      // (stories260K's): following its rules, both tools score the same token ids.
      '--lm-eval-version',
      '0.4.13',
    ];
    const { seconds } = timedSpawn(process.execPath, args);
    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as ResultsFile;
    const byRequest = new Map<string, number>();
    for (const line of readFileSync(samplesFile, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const sample = JSON.parse(line) as SampleLine;
      sample.arguments.forEach(([context, continuation], choice) =>
        byRequest.set(requestKey(context, continuation), sample.resps[choice]?.[0]?.[0] ?? Number.NaN),
      );
    }
    return {
      wallSeconds: seconds,
      scoringSeconds: results.mlrb.scoring_time_s,
      peakRssMb: results.mlrb.peak_rss_bytes / (1024 * 1024),
      attentionFused: results.mlrb.attention_fused,
      logliks: options.requests.map((request) => byRequest.get(requestKey(request.context, request.continuation)) ?? Number.NaN),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
