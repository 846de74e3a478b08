/**
 * gsm8k 5-shot on stories260K, whole commands in one run: mlrb-eval on the graph exported without past (the fused
 * attention keeps the KV cache: the decodeCache rewrite), the same graph recomputed every token (--no-cpu-fusion,
 * which also turns the cache off), the graph exported with past, and lm-eval 0.4.13's HF backend on the same
 * weights (scripts/bench/lm_eval_gsm8k.py). Each is timed from spawn to exit; every run's generated texts must
 * equal lm-eval's, document for document. Ours run under --lm-eval-version 0.4.13, the peer's release: under the
 * default (0.4.4–0.4.8 rules) stories260K's contexts get no BOS, as in lm-eval 0.4.8, and at 0 shots, where no
 * context is left-truncated, the texts differ from 0.4.13's from the first word.
 *
 * Data: the repository's gsm8k fixture (4 test documents, 7 train documents for the shots), its test documents
 * repeated --copies times, so the run is long enough to time without real gsm8k on the machine. stories260K never
 * emits a stop string, so each document generates lm-eval's max_gen_toks (256) after a 5-shot context
 * left-truncated to 256 tokens.
 *
 *   /work/pyenv/bin/python scripts/bench/build_peer_models.py --only stories260K         # <models>/stories260K (+ hf/)
 *   /work/pyenv/bin/python scripts/bench/build_generation_models.py --only stories260K   # <models>/stories260K-kv
 *   npx tsc -p tsconfig.json && MLRB_BENCH_PYTHON=/work/pyenv/bin/python npx tsx bench/gsm8k-generation.ts [--models DIR] [--copies 8]
 *
 * --num-fewshot N (default 5): fewer shots leave the contexts under the 256-token cut, so they differ in length
 * and the runs batch prompts of different lengths. --no-peer skips lm-eval (minutes): each run's texts are then
 * checked against the first run's. --no-recompute skips the recompute run (minutes). --cli FILE runs another
 * build's bin/mlrb-eval.js (a before/after comparison).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureCompiledCli } from './parts/mlrb-eval-command.js';
import { timedSpawn } from './parts/whole-command.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = path.join(REPO, 'test', 'fixtures', 'tasks', 'gsm8k', 'release');

const { values } = parseArgs({
  options: {
    models: { type: 'string', default: '/work/models' },
    copies: { type: 'string', default: '8' },
    'num-fewshot': { type: 'string', default: '5' },
    'no-peer': { type: 'boolean', default: false },
    'no-recompute': { type: 'boolean', default: false },
    cli: { type: 'string' },
  },
});
const copies = Number(values.copies);
const shots = values['num-fewshot'];
const python = process.env.MLRB_BENCH_PYTHON;
if (!python && !values['no-peer']) throw new Error('MLRB_BENCH_PYTHON must name a Python with lm_eval 0.4.13 and torch (e.g. /work/pyenv/bin/python)');
const cli = values.cli === undefined ? path.join(REPO, 'bin', 'mlrb-eval.js') : path.resolve(values.cli);

const work = mkdtempSync(path.join(tmpdir(), 'mlrb-bench-gsm8k-'));
try {
  const data = path.join(work, 'data');
  const testDocs = readFileSync(path.join(FIXTURE, 'test.jsonl'), 'utf8').trim().split('\n');
  mkdirData(data, Array.from({ length: copies }, () => testDocs).flat());
  if (values.cli === undefined) process.stdout.write(`${ensureCompiledCli()}\n`);
  const load = [loadavg()[0]!];

  const ours = (label: string, model: string, extra: string[]) => {
    const samples = path.join(work, `${label}.jsonl`);
    const args = [
      cli,
      model,
      '--tasks',
      'gsm8k',
      '--data',
      data,
      '--num-fewshot',
      shots,
      '--no-cache',
      '--quiet',
      '--output',
      path.join(work, `${label}.json`),
      '--log-samples',
      samples,
      '--lm-eval-version',
      '0.4.13',
      ...extra,
    ];
    const { seconds } = timedSpawn(process.execPath, args);
    const byDoc = new Map<number, string>();
    for (const line of readFileSync(samples, 'utf8').trim().split('\n')) {
      const record = JSON.parse(line) as { doc_id: number; resps: string[][] };
      byDoc.set(record.doc_id, record.resps[0]![0]!);
    }
    return { label, seconds, responses: [...byDoc.keys()].sort((a, b) => a - b).map((key) => byDoc.get(key)!) };
  };
  const runs = [
    ours('mlrb-eval, no-past graph (fused-attention KV cache)', path.join(values.models, 'stories260K', 'model.onnx'), []),
    ...(values['no-recompute']
      ? []
      : [ours('mlrb-eval, no-past graph recomputed (--no-cpu-fusion)', path.join(values.models, 'stories260K', 'model.onnx'), ['--no-cpu-fusion'])]),
    ours('mlrb-eval, with-past graph', path.join(values.models, 'stories260K-kv', 'onnx', 'model.onnx'), []),
  ];
  const heading = `gsm8k ${shots}-shot, stories260K, ${testDocs.length * copies} documents (the fixture's ${testDocs.length} × ${copies})`;
  if (values['no-peer']) {
    load.push(loadavg()[0]!);
    process.stdout.write(
      `\n${heading}; no lm-eval run; ` +
        `load average ${load.map((value) => value.toFixed(1)).join(' → ')}\n\n| run | wall s | texts equal the first run's |\n|---|---:|---|\n`,
    );
    for (const run of runs) {
      const equal = run.responses.every((text, index) => text === runs[0]!.responses[index]);
      process.stdout.write(`| ${run.label} | ${run.seconds.toFixed(1)} | ${equal ? 'all' : 'NO'} |\n`);
    }
  } else {
    comparePeer(runs, work, data, load, heading);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Runs lm-eval's HF backend on the same data and prints every run against it. */
function comparePeer(
  runs: readonly { label: string; seconds: number; responses: string[] }[],
  work: string,
  data: string,
  load: number[],
  heading: string,
): void {
  const peerOut = path.join(work, 'lm-eval.json');
  const peer = timedSpawn(
    python!,
    [
      path.join(REPO, 'scripts', 'bench', 'lm_eval_gsm8k.py'),
      '--hf',
      path.join(values.models, 'stories260K', 'hf'),
      '--data',
      data,
      '--num-fewshot',
      shots,
      '--out',
      peerOut,
    ],
    { env: { ...process.env, PYTHONPATH: path.join(REPO, 'scripts', 'lm_eval', 'stubs') } },
  );
  const reference = JSON.parse(readFileSync(peerOut, 'utf8')) as { responses: string[]; lm_eval_version: string; torch_version: string };
  load.push(loadavg()[0]!);

  process.stdout.write(
    `\n${heading}; ` +
      `lm-eval ${reference.lm_eval_version}, torch ${reference.torch_version}; load average ${load.map((value) => value.toFixed(1)).join(' → ')}\n\n`,
  );
  process.stdout.write("| run | wall s | lm-eval HF ÷ run | texts equal lm-eval's |\n|---|---:|---:|---|\n");
  process.stdout.write(`| lm-eval 0.4.13 HF (torch CPU, batch 1) | ${peer.seconds.toFixed(1)} | 1.0× | — |\n`);
  for (const run of runs) {
    const equal = run.responses.length === reference.responses.length && run.responses.every((text, index) => text === reference.responses[index]);
    process.stdout.write(`| ${run.label} | ${run.seconds.toFixed(1)} | ${(peer.seconds / run.seconds).toFixed(1)}× | ${equal ? 'all' : 'NO'} |\n`);
  }
}

/** A gsm8k release folder: the given test documents, the fixture's train documents for the shots. */
function mkdirData(dir: string, test: string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'test.jsonl'), `${test.join('\n')}\n`);
  writeFileSync(path.join(dir, 'train.jsonl'), readFileSync(path.join(FIXTURE, 'train.jsonl')));
}
