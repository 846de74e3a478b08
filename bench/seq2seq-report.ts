/** Markdown for the encoder-decoder section, and its targets: faster than lm-eval's seq2seq HF backend and than transformers.js. */
import { describeCpu } from './parts/cpu-info.js';
import { SEQ2SEQ_MODEL, type Seq2SeqResult } from './parts/seq2seq.bench-part.js';
import { LM_EVAL_PEER, PEER_BATCH_SIZE, PEER_THREADS } from './peers/lm-eval-hf.js';

const out = (text: string): void => {
  process.stdout.write(text);
};
const fixed = (value: number, digits = 0): string =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(value);
const sci = (value: number): string => (Number.isFinite(value) ? value.toExponential(1) : String(value));

export function printSeq2Seq(result: Seq2SeqResult): void {
  out(`\n## Encoder-decoder: ${SEQ2SEQ_MODEL} (Flan-T5-small's layers, optimum's with-past export)\n\n`);
  out(
    `CPU: ${describeCpu(result.cpu)}. 1-minute load average ${fixed(result.loadAverage.start, 1)} at the start, ${fixed(result.loadAverage.end, 1)} at the end (other jobs share the cores).\n`,
  );
  out(`Scoring peer: ${LM_EVAL_PEER} with backend=seq2seq, ${PEER_THREADS} torch threads, batch ${PEER_BATCH_SIZE}, float32, its tie_weights() call skipped`);
  out(
    result.peerVersions
      ? ` (lm_eval ${result.peerVersions.lmEval}, torch ${result.peerVersions.torch}, transformers ${result.peerVersions.transformers}).\n`
      : '.\n',
  );
  for (const line of result.skipped) out(`- skipped: ${line}\n`);
  if (result.scoring.length > 0) {
    out('\n| workload | requests | tool | whole command s | scoring s | peak RSS MB | max abs diff vs mlrb-eval |\n|---|---:|---|---:|---:|---:|---:|\n');
    for (const row of result.scoring) {
      out(
        `| ${row.workload} | ${row.requests} | mlrb-eval | ${fixed(row.mlrb.wallSeconds, 2)} | ${fixed(row.mlrb.scoringSeconds, 2)} | ${fixed(row.mlrb.peakRssMb)} | — |\n`,
      );
      if (row.peer)
        out(
          `| ${row.workload} | ${row.requests} | lm-eval seq2seq HF | ${fixed(row.peer.wallSeconds, 2)} | ${fixed(row.peer.scoringSeconds, 2)} | ${fixed(row.peer.peakRssMb)} | ${sci(row.maxAbsDiff ?? Number.NaN)} |\n`,
        );
    }
  }
  if (result.generation.length > 0) {
    out('\nGreedy decode tokens/s = batch × (N − 1) / (t_N − t_1), medians; prompts of one length.\n\n');
    out(
      '| peer | batch | prompt tokens | new tokens N | time to first token s | N-token run s | decode tokens/s | greedy ids = transformers |\n|---|---:|---:|---:|---:|---:|---:|---|\n',
    );
    for (const row of result.generation) {
      const ids = row.firstMismatch ? `differ at row ${row.firstMismatch.row}, step ${row.firstMismatch.step}` : 'yes';
      out(
        `| ${row.peer} | ${row.batch} | ${row.promptTokens} | ${row.newTokens} | ${fixed(row.firstTokenSeconds, 3)} | ${fixed(row.totalSeconds, 3)} | ${fixed(row.decodeTokensPerSecond, 1)} | ${ids} |\n`,
      );
    }
  }
}

/** One line per target, for the Targets section. */
export function seq2seqTargets(result: Seq2SeqResult): string[] {
  const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');
  const lines: string[] = [];
  for (const row of result.scoring) {
    if (!row.peer) continue;
    const ratio = row.peer.wallSeconds / row.mlrb.wallSeconds;
    lines.push(
      `${SEQ2SEQ_MODEL} ${row.workload} whole command faster than lm-eval seq2seq HF: ${fixed(ratio, 1)}× (${fixed(row.mlrb.wallSeconds, 2)} s against ${fixed(row.peer.wallSeconds, 2)} s) — ${verdict(ratio > 1)}`,
    );
  }
  for (const ours of result.generation.filter((row) => row.peer === 'ours')) {
    const peer = result.generation.find((row) => row.peer !== 'ours' && row.batch === ours.batch);
    if (!peer) continue;
    const ratio = ours.decodeTokensPerSecond / peer.decodeTokensPerSecond;
    lines.push(`${SEQ2SEQ_MODEL} decode tokens/s, batch ${ours.batch}, faster than transformers.js: ${fixed(ratio, 1)}× — ${verdict(ratio > 1)}`);
  }
  return lines;
}
