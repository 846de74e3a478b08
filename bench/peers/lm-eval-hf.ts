/**
 * The real peer: lm-eval 0.4.13's HF backend (HFLM, torch on the CPU), run as MLRB ran it: 2 torch threads,
 * batch size 8, float32, on the Hugging Face checkpoint of the same weights as the ONNX graph mlrb-eval
 * scores. It needs a Python with lm_eval and torch, named by MLRB_BENCH_PYTHON.
 *
 * Its whole command is `python scripts/gpu/lm_eval_loglik.py`: interpreter start, importing torch,
 * transformers and lm_eval, HFLM's model and tokenizer load, and HFLM.loglikelihood (its tokenizing,
 * batching, padding, forward passes and log-softmax) on the request list mlrb-eval builds for the same
 * task subset (scripts/gpu/dump-requests.ts's format), then writing the logliks. It does not read the
 * dataset or build the prompts: lm-eval would fetch those from the hub, and the request list makes both
 * tools score the identical strings. So the peer's whole command does less than mlrb-eval's.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoglikelihoodRequest } from '../../src/eval/instance.js';
import { timedSpawn, type WholeCommandRun } from '../parts/whole-command.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** lm-eval's HF backend on a request file; it puts scripts/gpu/stubs on sys.path for modules lm_eval imports but scoring never uses. */
const SCRIPT = path.join(REPO, 'scripts', 'gpu', 'lm_eval_loglik.py');

export const LM_EVAL_PEER = 'lm-eval 0.4.13 HF (torch CPU)';
export const PEER_THREADS = 2;
export const PEER_BATCH_SIZE = 8;

export interface LmEvalVersions {
  readonly lmEval: string;
  readonly torch: string;
  readonly transformers: string;
}

export interface LmEvalRun extends WholeCommandRun {
  readonly versions: LmEvalVersions;
}

/** The Python to run the peer with, or why the peer is skipped. */
export function peerPython(): { python: string } | { skipped: string } {
  const python = process.env.MLRB_BENCH_PYTHON;
  if (!python) return { skipped: 'MLRB_BENCH_PYTHON is not set (a Python with lm_eval 0.4.13 and torch, e.g. /work/pyenv/bin/python)' };
  if (!existsSync(python)) return { skipped: `MLRB_BENCH_PYTHON=${python} does not exist` };
  return { python };
}

interface Summary {
  readonly seconds_load: number;
  readonly seconds_loglikelihood: number;
  readonly peak_rss_mib: number;
  readonly lm_eval_version: string;
  readonly torch_version: string;
  readonly transformers_version: string;
}

/** `extraArgs` go to lm_eval_loglik.py as they are (an encoder-decoder: --hflm-arg backend=seq2seq --skip-tie-weights). */
export function runLmEvalCommand(
  python: string,
  hfDir: string,
  requests: readonly Pick<LoglikelihoodRequest, 'context' | 'continuation'>[],
  extraArgs: readonly string[] = [],
): LmEvalRun {
  const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-bench-lm-eval-'));
  try {
    const requestsFile = path.join(dir, 'requests.jsonl');
    writeFileSync(requestsFile, requests.map(({ context, continuation }) => `${JSON.stringify({ context, continuation })}\n`).join(''));
    const summaryFile = path.join(dir, 'summary.json');
    const logliksFile = path.join(dir, 'logliks.jsonl');
    const { seconds } = timedSpawn(python, [
      SCRIPT,
      '--model',
      hfDir,
      '--requests',
      requestsFile,
      '--device',
      'cpu',
      '--dtype',
      'float32',
      '--batch-size',
      String(PEER_BATCH_SIZE),
      '--threads',
      String(PEER_THREADS),
      '--out-json',
      summaryFile,
      '--out-jsonl',
      logliksFile,
      ...extraArgs,
    ]);
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as Summary;
    const logliks = readFileSync(logliksFile, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as [number, boolean])[0]);
    return {
      wallSeconds: seconds,
      scoringSeconds: summary.seconds_loglikelihood,
      loadSeconds: summary.seconds_load,
      peakRssMb: summary.peak_rss_mib,
      logliks,
      versions: { lmEval: summary.lm_eval_version, torch: summary.torch_version, transformers: summary.transformers_version },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
