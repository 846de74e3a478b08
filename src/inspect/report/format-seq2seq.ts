/** The `inspect` report of an encoder-decoder export as text; `--json` prints the object itself. */
import { formatDram } from './format.js';
import { formatVerdict } from './format-verdict.js';
import type { Seq2SeqEdgeReport } from '../seq2seq-edge-check.js';
import { formatBytes, formatCount } from '../units.js';

const HEAD_STATES: Readonly<Record<Seq2SeqEdgeReport['parameters']['tiedEmbeddings'], string>> = {
  shared: 'tied (the embedding itself)',
  duplicate: 'tied (a stored copy of the embedding, counted once)',
  untied: 'untied',
  'no-lm-head': 'not found',
};

export function formatSeq2SeqEdgeReport(report: Seq2SeqEdgeReport): string {
  const { parameters } = report;
  const lines = [
    `Model: ${report.model} (an encoder-decoder, optimum's ${report.layout} layout)`,
    `Parameters: ${formatCount(parameters.total)} stored over ${report.graphs.length} graphs (a tensor they repeat counted once) · LM head ${HEAD_STATES[parameters.tiedEmbeddings]}`,
    `  config.json says ${parameters.config.total === null ? `nothing countable (${parameters.config.source})` : `${formatCount(parameters.config.total)}, LM head ${parameters.config.tiedEmbeddings === true ? 'tied' : 'untied'} (information; the stored values are the count)`}`,
    `Tensor bytes: ${formatBytes(report.tensorBytes)} over ${report.graphs.length} graphs (each holds its own copy of the weights it reads)`,
  ];
  for (const graph of report.graphs) {
    const dtypes = Object.entries(graph.inspect.bytesByDtype)
      .map(([dtype, totals]) => `${dtype} ${formatBytes(totals.bytes)}`)
      .join(' · ');
    lines.push(
      `  ${graph.file}: ${formatBytes(graph.inspect.fileBytes)} file · ${formatBytes(graph.inspect.tensorBytes)} tensors (${dtypes}) · ` +
        `${formatCount(graph.inspect.nodeCount)} nodes · quantization ${graph.quantization.verdict.status} · weight types ${graph.weightDtypes.verdict.status}`,
    );
  }
  lines.push('', ...formatVerdict('Quantization, every graph (weights must be fp16/fp32)', report.quantization.verdict));
  lines.push(...formatVerdict('Weight types, every graph (FP16 or FP32)', report.weightDtypes.verdict));
  lines.push('', ...formatDram(report.dram, []));
  lines.push('', ...formatVerdict('Verdict', report.verdict));
  return `${lines.join('\n')}\n`;
}
