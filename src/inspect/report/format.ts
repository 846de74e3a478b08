/** The `inspect` report as text for a terminal; `--json` prints the objects themselves instead. */
import type { DramCheck } from '../dram/dram-check.js';
import type { EdgeCheckReport } from '../edge-check.js';
import { formatDramMeasurement } from '../dram/format.js';
import { formatVerdict } from './format-verdict.js';
import type { InspectReport, ValueSummary } from './inspect-report.js';
import { formatBytes, formatCount } from '../units.js';

const shapeText = (shape: ValueSummary['shape']): string => (shape === null ? '?' : `[${shape.map((dim) => dim ?? '?').join(', ')}]`);

function describeModel(report: InspectReport): string[] {
  const external = report.externalFiles.map((file) => `${file.path} ${formatBytes(file.size)}`).join(', ');
  const { parameters: p, architecture: a } = report;
  const known = (value: number | null): string => (value === null ? '?' : formatCount(value));
  const dtypes = Object.entries(report.bytesByDtype)
    .sort(([, x], [, y]) => y.bytes - x.bytes)
    .map(([dtype, totals]) => `${dtype} ${formatBytes(totals.bytes)} (${totals.tensors} tensors)`);
  return [
    `Model: ${report.model} (${formatBytes(report.fileBytes)}${external ? `; external data: ${external}` : ''})`,
    `Format: IR ${report.irVersion} · opsets ${report.opsets.map((o) => `${o.domain || 'ai.onnx'} ${o.version}`).join(', ')}${report.producer ? ` · producer ${report.producer}` : ''}`,
    `Inputs: ${report.inputs.map((v) => `${v.name} ${v.dtype} ${shapeText(v.shape)}`).join('; ')}`,
    `Outputs: ${report.outputs.map((v) => `${v.name} ${v.dtype} ${shapeText(v.shape)}`).join('; ')}`,
    `Parameters: ${formatCount(p.total)} total · ${formatCount(p.embedding)} embedding · ${formatCount(p.nonEmbedding)} non-embedding · embeddings ${p.tiedEmbeddings}`,
    `Tensor bytes: ${formatBytes(report.tensorBytes)} · ${dtypes.join(' · ')}`,
    `Architecture: hidden ${known(a.hidden)} · layers ${a.layers} · heads ${known(a.heads)} (kv ${known(a.kvHeads)}, head_dim ${known(a.headDim)}) · FFN ${known(a.intermediate)} · vocab ${known(a.vocab)} · max length ${known(a.maxLength)}`,
    ...a.assumptions.map((assumption) => `  (${assumption})`),
    ...graphLines(report),
    `Ops (${formatCount(report.nodeCount)} nodes): ${report.ops.map((op) => `${op.domain ? `${op.domain}.` : ''}${op.opType} ${op.count}`).join(' · ')}`,
    `Metadata read in ${report.readMs.toFixed(1)} ms (weights not read)`,
  ];
}

/** What the graph allows, and where config.json claims otherwise (warnings: the graph is what runs). */
function graphLines(report: InspectReport): string[] {
  const limit = report.graph.positionLimit;
  const rotary = report.graph.rotaryCaches.map((cache) => `${cache.tensor} ${formatCount(cache.rows)} rows`);
  return [
    `Graph: longest input ${limit ? `${formatCount(limit.rows)} tokens (position table ${limit.tensor})` : 'not limited by a position table'} · attention ${report.graph.attention} · logits ${report.graph.logitsType ?? '?'}${rotary.length > 0 ? ` · rotary caches ${rotary.join(', ')} (rebuilt for the DRAM measurement when shorter)` : ''}`,
    ...report.configWarnings.map((warning) => `  ! ${warning}`),
  ];
}

export function formatTensorTable(report: InspectReport): string[] {
  return report.tensors.map(
    (t) =>
      `  ${t.name}  ${t.dtype} [${t.shape.join(', ')}]  ${formatBytes(t.bytes)}  ${t.location}${t.role !== 'other' ? `  ${t.layer !== null ? `layer ${t.layer} ` : ''}${t.role}` : ''}`,
  );
}

export function formatEdgeReport(report: EdgeCheckReport, options: { readonly tensors?: boolean } = {}): string {
  const { dram } = report;
  const lines = [...describeModel(report.inspect)];
  if (options.tensors) lines.push('Tensors:', ...formatTensorTable(report.inspect));
  lines.push('', ...formatVerdict('Quantization (weights must be fp16/fp32)', report.quantization.verdict));
  lines.push(...formatVerdict('Weight types (FP16 or FP32)', report.weightDtypes.verdict));
  lines.push('', ...formatDram(dram, report.inspect.architecture.assumptions));
  lines.push('', ...formatVerdict('Verdict', report.verdict));
  return `${lines.join('\n')}\n`;
}

/** The DRAM estimate, the measurement and the budget's verdict; `shown` are assumptions already printed. */
export function formatDram(dram: DramCheck, shown: readonly string[]): string[] {
  const lines: string[] = [];
  lines.push(`DRAM estimate (batch 1, ${formatCount(dram.estimate.contextTokens)} tokens): ${dram.estimate.formula}`);
  for (const assumption of dram.estimate.assumptions.filter((a) => !shown.includes(a))) lines.push(`  (${assumption})`);
  if (dram.measurement) lines.push(...formatDramMeasurement(dram.measurement));
  else
    lines.push(
      dram.measurementError
        ? `DRAM measured: FAILED (${dram.measurementError.code}: ${dram.measurementError.message})`
        : 'DRAM measured: not run (pass --measure, or a --track / --dram-budget)',
    );
  if (dram.budget) {
    const label = dram.budget.source === 'custom' ? 'budget' : `${dram.budget.source} budget`;
    const what =
      dram.basis === 'measured-device'
        ? `Device memory vs ${label} ${formatBytes(dram.budget.bytes)} (peak device memory`
        : `DRAM vs ${label} ${formatBytes(dram.budget.bytes)} (${dram.basis}`;
    lines.push(...formatVerdict(`${what} ${formatBytes(dram.usedBytes)})`, dram.verdict));
  }
  return lines;
}
