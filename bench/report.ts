/** Markdown for each benchmark section, and the issue's targets checked against the figures. */
import type { GenerationResult } from './parts/generation.bench-part.js';
import type { MemoryRow } from './parts/memory.bench-part.js';
import type { InspectBenchResult } from './inspect.bench-part.js';
import type { OpShare } from './parts/op-profile.bench-part.js';
import type { Seq2SeqResult } from './parts/seq2seq.bench-part.js';
import { seq2seqTargets } from './seq2seq-report.js';
import type { PrefixReuseResult } from './parts/prefix-reuse.bench-part.js';
import { median, type RealPeerResult, type RealPeerRow } from './parts/real-peer.bench-part.js';
import { describeCpu } from './parts/cpu-info.js';
import type { WholeCommandRun } from './parts/whole-command.js';
import { LM_EVAL_PEER, PEER_BATCH_SIZE, PEER_THREADS } from './peers/lm-eval-hf.js';
import type { MatMulPoint } from './parts/roofline.bench-part.js';
import type { TokenizeCacheResult } from './parts/tokenize-cache.bench-part.js';
import { OUR_SCORERS, type ThroughputRow } from './scoring.bench-part.js';

export interface Figures {
  roofline?: MatMulPoint[];
  throughput?: ThroughputRow[];
  memory?: { weightBytes: number; rows: MemoryRow[] };
  prefixReuse?: PrefixReuseResult;
  tokenizeCache?: TokenizeCacheResult[];
  opProfile?: OpShare[];
  inspect?: InspectBenchResult;
  realPeer?: RealPeerResult;
  generation?: GenerationResult;
  encoderDecoder?: Seq2SeqResult;
}

const MB = 1024 * 1024;

export function printInspect(result: InspectBenchResult): void {
  out(`\n## Edge checks — generated ${fixed(result.modelBytes / 1e9, 2)} GB external-data model (${result.tensors} tensors)\n\n`);
  out('| metric | value |\n|---|---:|\n');
  out(`| inspect (metadata only), mean ms | ${fixed(result.inspectMeanMs, 1)} |\n`);
  out(`| RSS change during inspect, MB | ${fixed(result.inspectRssDeltaBytes / MB, 2)} |\n`);
  out(`| zero scan, ${result.threads} threads, GB/s | ${fixed(result.zeroScanGBps, 1)} |\n`);
  out(`| zero scan, 1 thread, GB/s | ${fixed(result.zeroScanGBpsSingleThread, 1)} |\n`);
}
const out = (text: string): void => {
  process.stdout.write(text);
};
const fixed = (value: number, digits = 0): string =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(value);
const sci = (value: number): string => (Number.isFinite(value) ? value.toExponential(1) : String(value));

export function printRoofline(points: readonly MatMulPoint[]): void {
  out('\n## Roofline: dense fp32 MatMul through ONNX Runtime\n\n| M × K × N | all cores: GFLOP/s | one thread: GFLOP/s |\n|---|---:|---:|\n');
  for (const point of points) out(`| ${point.m} × ${point.k} × ${point.n} | ${fixed(point.gflops, 1)} | ${fixed(point.singleThreadGflops, 1)} |\n`);
}

export function printThroughput(rows: readonly ThroughputRow[]): void {
  out(
    `\n## Throughput — ${rows[0]?.model ?? ''}\n\n| workload | scorer | requests | median s | requests/s | tokens/s | useful GFLOP/s | max abs diff vs mlrb-eval |\n|---|---|---:|---:|---:|---:|---:|---:|\n`,
  );
  for (const row of rows) {
    out(
      `| ${row.workload} | ${row.scorer} | ${row.requests} | ${fixed(row.medianSeconds, 3)} | ${fixed(row.requestsPerSecond, 1)} | ${fixed(row.tokensPerSecond)} | ${fixed(row.usefulGflops, 1)} | ${row.scorer === 'mlrb-eval' ? '—' : sci(row.maxAbsDiff)} |\n`,
    );
  }
  const isOurs = (scorer: string): boolean => (OUR_SCORERS as readonly string[]).includes(scorer);
  for (const workload of new Set(rows.map((row) => row.workload))) {
    for (const ours of rows.filter((row) => row.workload === workload && isOurs(row.scorer))) {
      for (const peer of rows.filter((row) => row.workload === workload && !isOurs(row.scorer))) {
        out(`- ${workload}: ${ours.scorer} is ${fixed(ours.requestsPerSecond / peer.requestsPerSecond, 1)}× ${peer.scorer}\n`);
      }
    }
  }
}

export function printMemory(memory: NonNullable<Figures['memory']>, workload: string): void {
  const limitMb = (memory.weightBytes * 1.2) / MB + 300;
  out(`\n## LM-head slicing and peak RSS — ${workload} (weights ${fixed(memory.weightBytes / MB)} MB, target ≤ ${fixed(limitMb)} MB)\n\n`);
  out(
    '| configuration | batches | padded tokens | logit rows | s | RSS after load MB | peak RSS loading MB | peak RSS scoring MB |\n|---|---:|---:|---:|---:|---:|---:|---:|\n',
  );
  for (const row of memory.rows) {
    out(
      `| ${row.label} | ${row.batches} | ${row.paddedTokens} | ${row.logitRows} | ${fixed(row.seconds, 2)} | ${fixed(row.afterLoadMb)} | ${fixed(row.loadPeakMb)} | ${fixed(row.scoringPeakMb)} |\n`,
    );
  }
}

export function printOpProfile(shares: readonly OpShare[], label: string): void {
  out(`\n## Where a forward pass spends its time — ${label}, ONNX Runtime profiler, LM head excluded\n\n| op type | ms per pass | share |\n|---|---:|---:|\n`);
  for (const share of shares.slice(0, 12)) out(`| ${share.opType} | ${fixed(share.milliseconds, 1)} | ${fixed(100 * share.share, 1)} % |\n`);
}

export function printPrefixReuse(result: PrefixReuseResult): void {
  out(`\n## Few-shot prefix reuse — ${result.workload}, ${result.requests} requests\n\n`);
  out('| path | s | prefix groups | tokens computed | reused prefix tokens |\n|---|---:|---:|---:|---:|\n');
  out(
    `| with reuse | ${fixed(result.withReuseSeconds, 2)} | ${result.withReuse.prefixGroups} | ${result.withReuse.paddedTokens} | ${result.withReuse.reusedPrefixTokens} |\n`,
  );
  out(`| without reuse | ${fixed(result.withoutReuseSeconds, 2)} | 0 | ${result.withoutReuse.paddedTokens} | 0 |\n`);
  out(
    `- speed-up ${fixed(result.withoutReuseSeconds / result.withReuseSeconds, 2)}×; max |Δ loglik| ${sci(result.maxAbsDiff)}; prediction mismatches ${result.predictionMismatches} of ${result.questions}\n`,
  );
}

export function printTokenizeCache(results: readonly TokenizeCacheResult[]): void {
  out('\n## Tokenization and the disk cache (MMLU 0-shot requests)\n\n| tokenizer of | requests | cold s | cached s | identical |\n|---|---:|---:|---:|---|\n');
  for (const result of results)
    out(`| ${result.model} | ${result.requests} | ${fixed(result.coldSeconds, 2)} | ${fixed(result.warmSeconds, 3)} | ${result.identical} |\n`);
}

function ratio(rows: readonly ThroughputRow[], model: string, workloadPrefix: string, peer: string, ours: string): number {
  const find = (scorer: string): ThroughputRow | undefined =>
    rows.find((row) => row.model === model && row.workload.startsWith(workloadPrefix) && row.scorer === scorer);
  return (find(ours)?.requestsPerSecond ?? Number.NaN) / (find(peer)?.requestsPerSecond ?? Number.NaN);
}

export function printTargets(figures: Figures): void {
  const rows = figures.throughput ?? [];
  const lines: string[] = [];
  const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');
  for (const model of new Set(rows.map((row) => row.model))) {
    // Targets concern the default configuration; the unfused row is in the tables for comparison.
    const ours = 'mlrb-eval';
    const naive = ratio(rows, model, 'MMLU', 'naive ORT-JS loop', ours);
    const tjs = ratio(rows, model, 'MMLU', 'transformers.js', ours);
    const blimp = ratio(rows, model, 'BLiMP', 'naive ORT-JS loop', ours);
    lines.push(`MMLU 0-shot ≥ 10× naive (${model}, ${ours}): ${fixed(naive, 1)}× — ${verdict(naive >= 10)}`);
    lines.push(`MMLU 0-shot ≥ 3× transformers.js (${model}, ${ours}): ${fixed(tjs, 1)}× — ${verdict(tjs >= 3)}`);
    lines.push(`BLiMP ≥ 5× naive (${model}, ${ours}): ${fixed(blimp, 1)}× — ${verdict(blimp >= 5)}`);
  }
  if (figures.roofline && rows.length > 0) {
    const roof = Math.max(...figures.roofline.map((point) => point.gflops));
    const achieved =
      rows.find((row) => row.model.includes('124M') && row.workload.startsWith('MMLU') && row.scorer === 'mlrb-eval')?.usefulGflops ?? Number.NaN;
    lines.push(
      `≥ 60 % of roofline (124M, MMLU 0-shot): ${fixed(achieved, 1)} of ${fixed(roof, 1)} GFLOP/s = ${fixed((100 * achieved) / roof)} % — ${verdict(achieved / roof >= 0.6)}`,
    );
  }
  if (figures.prefixReuse) {
    const speedup = figures.prefixReuse.withoutReuseSeconds / figures.prefixReuse.withReuseSeconds;
    lines.push(`5-shot prefix reuse ≥ 2.5×: ${fixed(speedup, 2)}× — ${verdict(speedup >= 2.5)}`);
  }
  if (figures.memory) {
    const limit = (figures.memory.weightBytes * 1.2) / MB + 300;
    const sliced = figures.memory.rows.find((row) => row.sliceLmHead && row.batchSize === 'auto');
    if (sliced) {
      lines.push(
        `peak RSS while scoring ≤ ${fixed(limit)} MB: ${fixed(sliced.scoringPeakMb)} MB — ${verdict(sliced.scoringPeakMb <= limit)} (load peak ${fixed(sliced.loadPeakMb)} MB)`,
      );
    }
  }
  if (figures.realPeer) lines.push(...realPeerTargets(figures.realPeer));
  if (figures.encoderDecoder) lines.push(...seq2seqTargets(figures.encoderDecoder));
  out(`\n## Targets\n\n${lines.length > 0 ? lines.map((line) => `- ${line}`).join('\n') : '(no target was measured in this run)'}\n`);
}

export function printGeneration(result: GenerationResult): void {
  out('\n## Generation: greedy decode tokens/s\n\n');
  out(
    `CPU: ${describeCpu(result.cpu)}. 1-minute load average ${fixed(result.loadAverage.start, 1)} at the start, ${fixed(result.loadAverage.end, 1)} at the end (other jobs share the cores).\n`,
  );
  out(
    'Decode tokens/s = batch × (N − 1) / (t_N − t_1): prefill excluded, reported as time to first token (t_1, a 1-token run). Medians of the runs; prompts of one length, no padding.\n',
  );
  for (const line of result.skipped) out(`- skipped: ${line}\n`);
  if (result.rows.length === 0) return;
  out(
    '\n| model | cache | batch | peer | prompt tokens | new tokens N | time to first token s | N-token run s | decode tokens/s | greedy ids = transformers |\n',
  );
  out('|---|---|---:|---|---:|---:|---:|---:|---:|---|\n');
  for (const row of result.rows) {
    const ids = row.firstMismatch ? `differ at row ${row.firstMismatch.row}, step ${row.firstMismatch.step}` : 'yes';
    out(
      `| ${row.model} | ${row.cache} | ${row.batch} | ${row.peer} | ${row.promptTokens} | ${row.newTokens} | ${fixed(row.firstTokenSeconds, 3)} | ${fixed(row.totalSeconds, 3)} | ${fixed(row.decodeTokensPerSecond, 1)} | ${ids} |\n`,
    );
  }
  for (const ours of result.rows.filter((row) => row.peer === 'ours')) {
    for (const peer of result.rows.filter((row) => row.peer !== 'ours' && row.model === ours.model && row.batch === ours.batch && row.cache === ours.cache)) {
      out(
        `- ${ours.model}, ${ours.cache}, batch ${ours.batch}: ours decodes ${fixed(ours.decodeTokensPerSecond / peer.decodeTokensPerSecond, 1)}× ${peer.peer}\n`,
      );
    }
  }
}

const bestRoofline = (result: RealPeerResult): number => Math.max(...result.roofline.map((point) => point.gflops));

export function printRealPeer(result: RealPeerResult): void {
  out(`\n## Real peer: lm-eval HF — whole commands on the same weights\n\n`);
  out(`CPU: ${describeCpu(result.cpu)}. Peer: ${LM_EVAL_PEER}, ${PEER_THREADS} torch threads, batch ${PEER_BATCH_SIZE}, float32`);
  out(
    result.peerVersions
      ? ` (lm_eval ${result.peerVersions.lmEval}, torch ${result.peerVersions.torch}, transformers ${result.peerVersions.transformers}).\n`
      : '.\n',
  );
  for (const line of result.skipped) out(`- skipped: ${line}\n`);
  if (result.rows.length === 0) return;
  out(
    `- 1-minute load average ${fixed(result.loadAverage.start, 1)} at the start, ${fixed(result.loadAverage.end, 1)} at the end (${result.cpu.cores} cores; other jobs share them).\n`,
  );
  out(`- CLI: ${result.cli}. Roofline (best all-core dense fp32 MatMul, measured just before): ${fixed(bestRoofline(result), 1)} GFLOP/s.\n`);
  for (const load of result.loads) {
    out(
      `- mlrb-eval load, ${load.model} (${fixed(load.onnxBytes / 1e6)} MB model.onnx), fresh process: median ${fixed(median(load.seconds), 2)} s of ${load.seconds.map((s) => fixed(s, 2)).join(', ')}\n`,
    );
  }
  out(
    '\n| model | workload | requests | tool | whole command s | load s | scoring s | useful GFLOP/s | % of roofline | peak RSS MB | max abs diff vs mlrb-eval |\n',
  );
  out('|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n');
  const roof = bestRoofline(result);
  const line = (row: RealPeerRow, tool: string, run: WholeCommandRun, load: string, diff: string): void => {
    const gflops = row.usefulGflop / run.scoringSeconds;
    out(
      `| ${row.model} | ${row.workload} | ${row.requests} | ${tool} | ${fixed(run.wallSeconds, 2)} | ${load} | ${fixed(run.scoringSeconds, 2)} | ${fixed(gflops, 1)} | ${fixed((100 * gflops) / roof)} % | ${fixed(run.peakRssMb)} | ${diff} |\n`,
    );
  };
  for (const row of result.rows) {
    const load = result.loads.find((entry) => entry.model === row.model);
    line(row, row.mlrb.attentionFused ? 'mlrb-eval (attention fused)' : 'mlrb-eval', row.mlrb, load ? fixed(median(load.seconds), 2) : '—', '—');
    if (row.peer) line(row, 'lm-eval HF', row.peer, fixed(row.peer.loadSeconds ?? Number.NaN, 2), sci(row.maxAbsDiff ?? Number.NaN));
  }
  for (const row of result.rows) {
    if (!row.peer) continue;
    out(
      `- ${row.model}, ${row.workload}: mlrb-eval is ${fixed(row.peer.wallSeconds / row.mlrb.wallSeconds, 1)}× lm-eval HF on the whole command, ${fixed(row.peer.scoringSeconds / row.mlrb.scoringSeconds, 1)}× on scoring\n`,
    );
  }
}

function realPeerTargets(result: RealPeerResult): string[] {
  const lines: string[] = [];
  const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');
  const row = (model: string, workload: string): RealPeerRow | undefined =>
    result.rows.find((candidate) => candidate.model === model && candidate.workload.startsWith(workload));
  const speedup = (model: string, workload: string, target: number): void => {
    const found = row(model, workload);
    if (!found?.peer) return;
    const ratio = found.peer.wallSeconds / found.mlrb.wallSeconds;
    lines.push(
      `${model} ${workload} whole command ≥ ${target}× lm-eval HF: ${fixed(ratio, 1)}× (${fixed(found.mlrb.wallSeconds, 2)} s against ${fixed(found.peer.wallSeconds, 2)} s) — ${verdict(ratio >= target)}`,
    );
  };
  speedup('gpt2-small', 'MMLU', 5);
  speedup('gpt2-small', 'BLiMP', 2.5);
  const load = result.loads.find((entry) => entry.model === 'gpt2-small');
  if (load) {
    const seconds = median(load.seconds);
    lines.push(`gpt2-small load (${fixed(load.onnxBytes / 1e6)} MB) ≤ 2 s: ${fixed(seconds, 2)} s — ${verdict(seconds <= 2)}`);
  }
  const blimp = row('gpt2-small', 'BLiMP');
  if (blimp) {
    const gflops = blimp.usefulGflop / blimp.mlrb.scoringSeconds;
    const share = gflops / bestRoofline(result);
    lines.push(
      `gpt2-small BLiMP ≥ 80 % of the MatMul roofline: ${fixed(gflops, 1)} of ${fixed(bestRoofline(result), 1)} GFLOP/s = ${fixed(100 * share)} % — ${verdict(share >= 0.8)}`,
    );
  }
  speedup('stories260K', 'BLiMP', 10);
  speedup('stories260K', 'MMLU', 10);
  const weights = result.weightBytes['gpt2-small'];
  const gpt2Rows = result.rows.filter((candidate) => candidate.model === 'gpt2-small');
  if (weights !== undefined && gpt2Rows.length > 0) {
    const limit = (weights * 1.2) / MB + 300;
    const peak = Math.max(...gpt2Rows.map((candidate) => candidate.mlrb.peakRssMb));
    lines.push(`gpt2-small whole-command peak RSS ≤ weights + 20 % + 300 MB = ${fixed(limit)} MB: ${fixed(peak)} MB — ${verdict(peak <= limit)}`);
  }
  return lines;
}
