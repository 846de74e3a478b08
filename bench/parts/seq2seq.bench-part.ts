/**
 * The encoder-decoder row, in one run, on one model (Flan-T5-small's shape: scripts/bench/build_seq2seq_models.py):
 *   scoring     mlrb-eval's whole command against lm-eval 0.4.13's seq2seq HF backend on the same weights
 *               (2 torch threads, batch 8, float32, its tie_weights() call skipped so both score the files' untied
 *               head), on MMLU 0-shot (57 subjects × 2) and BLiMP (67 paradigms × 10), every loglik compared;
 *   generation  greedy decode tokens/s of our engine against transformers.js's generate (AutoModelForSeq2SeqLM over
 *               the merged decoder), batch 1 and 8, timed as the causal generation section times its peers, every
 *               run's ids checked against transformers'.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { loadSuiteRequests } from '../../scripts/gpu/suite-requests.js';
import { createTextGenerator } from '../../src/generate/text-generator.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { greedyDecoderOf, type GreedyDecoder } from '../peers/greedy-decoder.js';
import { peerPython, runLmEvalCommand, type LmEvalRun, type LmEvalVersions } from '../peers/lm-eval-hf.js';
import { createTransformersJsSeq2SeqDecoder } from '../peers/transformers-js-seq2seq.js';
import { cpuInfo, type CpuInfo } from './cpu-info.js';
import { measureDecoding, type DecodeTiming } from './decode-timing.js';
import { maxAbsDiff } from './real-peer.bench-part.js';
import { ensureCompiledCli, runMlrbEvalCommand, type MlrbEvalRun } from './mlrb-eval-command.js';
import { WholeCommandError } from './whole-command.js';
import type { DataDirs } from './workloads.js';

export const SEQ2SEQ_MODEL = 'flan-t5-small-shaped';
export const SEQ2SEQ_GENERATION_PEERS = ['ours', 'transformers.js generate'] as const;

export interface Seq2SeqScoringRow {
  readonly workload: string;
  readonly requests: number;
  readonly mlrb: MlrbEvalRun;
  readonly peer?: LmEvalRun;
  readonly maxAbsDiff?: number;
}

export interface Seq2SeqGenerationRow extends DecodeTiming {
  readonly peer: (typeof SEQ2SEQ_GENERATION_PEERS)[number];
  readonly batch: number;
}

export interface Seq2SeqResult {
  readonly cpu: CpuInfo;
  readonly skipped: readonly string[];
  readonly scoring: readonly Seq2SeqScoringRow[];
  readonly generation: readonly Seq2SeqGenerationRow[];
  readonly peerVersions?: LmEvalVersions;
  readonly loadAverage: { readonly start: number; readonly end: number };
}

export interface Seq2SeqOptions {
  readonly modelsDir: string;
  readonly dirs: DataDirs;
  readonly quick: boolean;
  readonly threads?: number | undefined;
}

interface Reference {
  readonly maxNewTokens: number;
  readonly prompts: number[][];
  readonly greedy: number[][];
}

const BATCHES = [1, 8] as const;
/** ONNX Runtime's own default (a thread per core), as transformers.js runs: loadModel's default is 1 per pass. */
const ORT_DEFAULT_THREADS = 0;

async function ourDecoder(onnxDir: string, threads: number | undefined): Promise<GreedyDecoder> {
  const model = await loadModel({ model: onnxDir, threads: threads ?? ORT_DEFAULT_THREADS, onWarning: () => {} });
  return greedyDecoderOf(createTextGenerator(model, { batchSize: 64 }), async () => model.dispose());
}

export async function runSeq2SeqBenchmark(options: Seq2SeqOptions): Promise<Seq2SeqResult> {
  const start = loadavg()[0] ?? Number.NaN;
  const dir = path.join(options.modelsDir, SEQ2SEQ_MODEL);
  const onnxDir = path.join(dir, 'onnx');
  const referenceFile = path.join(dir, 'generation-reference.json');
  const result = { cpu: cpuInfo(), skipped: [] as string[], scoring: [] as Seq2SeqScoringRow[], generation: [] as Seq2SeqGenerationRow[] };
  if (!existsSync(referenceFile)) {
    result.skipped.push(
      `${SEQ2SEQ_MODEL}: ${referenceFile} not found (build it: PYTHON scripts/bench/build_seq2seq_models.py --out-root ${options.modelsDir})`,
    );
    return { ...result, loadAverage: { start, end: start } };
  }
  ensureCompiledCli();
  const python = peerPython();
  if ('skipped' in python) result.skipped.push(`lm-eval seq2seq HF peer: ${python.skipped}`);
  let peerVersions: LmEvalVersions | undefined;
  const suites = [
    { suite: 'mmlu' as const, dataDir: options.dirs.mmluDir, limit: options.quick ? 1 : 2, label: (limit: number) => `MMLU 0-shot (57 subjects × ${limit})` },
    { suite: 'blimp' as const, dataDir: options.dirs.blimpDir, limit: options.quick ? 1 : 10, label: (limit: number) => `BLiMP (67 paradigms × ${limit})` },
  ];
  for (const { suite, dataDir, limit, label } of suites) {
    const { requests } = await loadSuiteRequests({ suite, data: dataDir, 'num-fewshot': '0', limit: String(limit) });
    try {
      const mlrb = runMlrbEvalCommand({ modelPath: onnxDir, suite, dataDir, limit, requests });
      const peer =
        'python' in python
          ? runLmEvalCommand(python.python, path.join(dir, 'hf'), requests, ['--hflm-arg', 'backend=seq2seq', '--skip-tie-weights'])
          : undefined;
      peerVersions ??= peer?.versions;
      result.scoring.push({
        workload: label(limit),
        requests: requests.length,
        mlrb,
        ...(peer ? { peer, maxAbsDiff: maxAbsDiff(mlrb.logliks, peer.logliks) } : {}),
      });
    } catch (error) {
      if (!(error instanceof WholeCommandError)) throw error;
      result.skipped.push(`${label(limit)}: ${error.summary}`);
    }
  }
  const reference = JSON.parse(readFileSync(referenceFile, 'utf8')) as Reference;
  const plan = options.quick ? { newTokens: 4, repetitions: 1 } : { newTokens: reference.maxNewTokens, repetitions: 3 };
  const peers: Record<Seq2SeqGenerationRow['peer'], () => Promise<GreedyDecoder>> = {
    ours: () => ourDecoder(onnxDir, options.threads),
    'transformers.js generate': () => createTransformersJsSeq2SeqDecoder(dir, options.threads),
  };
  for (const peer of SEQ2SEQ_GENERATION_PEERS) {
    const decoder = await peers[peer]();
    try {
      await decoder.decode(reference.prompts.slice(0, 1), 2); // warm-up: first-run allocations and kernel choice
      for (const batch of BATCHES) result.generation.push({ peer, batch, ...(await measureDecoding(decoder, reference, batch, plan)) });
    } finally {
      await decoder.dispose();
    }
  }
  return { ...result, loadAverage: { start, end: loadavg()[0] ?? Number.NaN }, ...(peerVersions ? { peerVersions } : {}) };
}
