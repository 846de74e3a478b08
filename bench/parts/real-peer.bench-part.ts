/**
 * The real peer, side by side in one run: mlrb-eval's CLI against lm-eval 0.4.13's HF backend on the
 * same weights (scripts/bench/build_peer_models.py writes both formats), on MLRB's task subset (MMLU
 * 0-shot, 2 questions per subject; BLiMP, 10 pairs per paradigm). Both tools run as whole commands,
 * timed from process start to exit; their own scoring time, mlrb-eval's load time (fresh processes),
 * achieved GFLOP/s against the MatMul roofline and peak RSS are reported beside it, and every lm-eval
 * loglik is compared with mlrb-eval's.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildModelInputs } from '../../src/eval/text-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadSuiteRequests } from '../../scripts/gpu/suite-requests.js';
import { findPeerModel, PEER_MODEL_NAMES, type PeerModel, type PeerModelName } from '../models/peer-models.js';
import { peerPython, runLmEvalCommand, type LmEvalRun, type LmEvalVersions } from '../peers/lm-eval-hf.js';
import { cpuInfo, type CpuInfo } from './cpu-info.js';
import { ensureCompiledCli, runMlrbEvalCommand, type MlrbEvalRun } from './mlrb-eval-command.js';
import { runRooflineBenchmarks, type MatMulPoint } from './roofline.bench-part.js';
import { timedSpawn, WholeCommandError } from './whole-command.js';
import { usefulFlops, type DataDirs } from './workloads.js';

export interface RealPeerRow {
  readonly model: PeerModelName;
  readonly workload: string;
  readonly requests: number;
  readonly usefulGflop: number;
  readonly mlrb: MlrbEvalRun;
  readonly peer?: LmEvalRun;
  /** Largest |lm-eval loglik − mlrb-eval loglik| over the workload's requests. */
  readonly maxAbsDiff?: number;
}

export interface RealPeerLoad {
  readonly model: PeerModelName;
  readonly onnxBytes: number;
  /** mlrb-eval's loadModel in each fresh process; the median is the figure. */
  readonly seconds: readonly number[];
}

export interface RealPeerResult {
  readonly cpu: CpuInfo;
  /** Why a model or the peer did not run (empty when everything ran). */
  readonly skipped: readonly string[];
  readonly cli: string;
  readonly roofline: readonly MatMulPoint[];
  readonly loads: readonly RealPeerLoad[];
  readonly rows: readonly RealPeerRow[];
  readonly peerVersions?: LmEvalVersions;
  readonly weightBytes: Partial<Record<PeerModelName, number>>;
  /** The machine's 1-minute load average when the section started and ended (it is shared: see RESULTS.md). */
  readonly loadAverage: { readonly start: number; readonly end: number };
}

export interface RealPeerOptions {
  readonly modelsDir: string;
  readonly dirs: DataDirs;
  readonly quick: boolean;
  readonly threads?: number | undefined;
}

const LOAD_RUNS = 3;
const loadChild = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load-child.ts');

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
};

/** Reads a file once so that neither tool's first run pays for the disk (both then start from the page cache). */
function warmPageCache(file: string): void {
  const buffer = Buffer.allocUnsafe(16 * 1024 * 1024);
  const fd = openSync(file, 'r');
  try {
    while (readSync(fd, buffer, 0, buffer.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}

function warmModelFiles(model: PeerModel): void {
  warmPageCache(model.modelPath);
  for (const name of readdirSync(model.hfDir)) {
    const file = path.join(model.hfDir, name);
    if (statSync(file).isFile()) warmPageCache(file);
  }
}

function measureLoad(model: PeerModel): RealPeerLoad {
  const seconds = Array.from({ length: LOAD_RUNS }, () => {
    const { stdout } = timedSpawn(process.execPath, ['--import', 'tsx', loadChild, model.modelPath]);
    return (JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { seconds: number }).seconds;
  });
  return { model: model.name as PeerModelName, onnxBytes: model.onnxBytes, seconds };
}

/** Useful FLOPs of a request list (bench/parts/workloads.ts's count), tokenized with the model's own tokenizer. */
async function workloadGflop(model: PeerModel, requests: Parameters<typeof buildModelInputs>[1]): Promise<number> {
  const loaded = await loadModel({ model: model.modelPath });
  try {
    return (
      usefulFlops(
        buildModelInputs(loaded, requests, (index) => `request ${index}`),
        model.dims,
      ) / 1e9
    );
  } finally {
    loaded.dispose();
  }
}

/** The largest |ours − theirs| over paired values; NaN when the lists differ in length. */
export function maxAbsDiff(ours: readonly number[], theirs: readonly number[]): number {
  if (ours.length !== theirs.length) return Number.NaN;
  return theirs.reduce((max, value, index) => Math.max(max, Math.abs(value - (ours[index] ?? Number.NaN))), 0);
}

export async function runRealPeerBenchmark(options: RealPeerOptions): Promise<RealPeerResult> {
  const skipped: string[] = [];
  const models: PeerModel[] = [];
  for (const name of PEER_MODEL_NAMES) {
    const found = findPeerModel(options.modelsDir, name);
    if ('missing' in found)
      skipped.push(`${name}: ${found.missing} not found (build it: PYTHON scripts/bench/build_peer_models.py --out-root ${options.modelsDir})`);
    else models.push(found);
  }
  const python = peerPython();
  if ('skipped' in python) skipped.push(`lm-eval HF peer: ${python.skipped}`);
  const startLoad = loadavg()[0] ?? Number.NaN;
  const result = {
    cpu: cpuInfo(),
    skipped,
    cli: '',
    roofline: [] as MatMulPoint[],
    loads: [] as RealPeerLoad[],
    rows: [] as RealPeerRow[],
    weightBytes: {} as RealPeerResult['weightBytes'],
  };
  if (models.length === 0) return { ...result, loadAverage: { start: startLoad, end: startLoad } };
  result.cli = ensureCompiledCli();
  // Measured right before the runs it bounds, so both see the same machine load.
  result.roofline = await runRooflineBenchmarks(options.threads);
  let peerVersions: LmEvalVersions | undefined;
  const suites = [
    { suite: 'mmlu' as const, dataDir: options.dirs.mmluDir, limit: options.quick ? 1 : 2, label: (limit: number) => `MMLU 0-shot (57 subjects × ${limit})` },
    { suite: 'blimp' as const, dataDir: options.dirs.blimpDir, limit: options.quick ? 1 : 10, label: (limit: number) => `BLiMP (67 paradigms × ${limit})` },
  ];
  for (const model of models) {
    const name = model.name as PeerModelName;
    result.weightBytes[name] = model.onnxBytes;
    warmModelFiles(model);
    result.loads.push(measureLoad(model));
    for (const { suite, dataDir, limit, label } of suites) {
      const { requests } = await loadSuiteRequests({ suite, data: dataDir, 'num-fewshot': '0', limit: String(limit) });
      try {
        const mlrb = runMlrbEvalCommand({ modelPath: model.modelPath, suite, dataDir, limit, requests });
        const peer = 'python' in python ? runLmEvalCommand(python.python, model.hfDir, requests) : undefined;
        peerVersions ??= peer?.versions;
        result.rows.push({
          model: name,
          workload: label(limit),
          requests: requests.length,
          usefulGflop: await workloadGflop(model, requests),
          mlrb,
          ...(peer ? { peer, maxAbsDiff: maxAbsDiff(mlrb.logliks, peer.logliks) } : {}),
        });
      } catch (error) {
        // A command that fails costs its row, not the minutes of rows already measured.
        if (!(error instanceof WholeCommandError)) throw error;
        skipped.push(`${name}, ${label(limit)}: ${error.summary}`);
      }
    }
  }
  return { ...result, loadAverage: { start: startLoad, end: loadavg()[0] ?? Number.NaN }, ...(peerVersions ? { peerVersions } : {}) };
}
