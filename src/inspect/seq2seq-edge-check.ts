/**
 * `inspect` for an encoder-decoder export: the weight rules (no quantization, FP16/FP32 weights) on every graph (the
 * model breaks a rule if any of its graphs does), the parameters counted from storage over all its graphs
 * (seq2seq-parameters.ts: a tensor the graphs repeat counts once), and DRAM:
 * the estimate holds every graph's weights (all are loaded at once) and the largest graph's working set (one runs at
 * a time); the measurement loads the whole model in a child process and scores one encoder row and its decoder row.
 */
import type { Seq2SeqFiles, Seq2SeqLayout } from '../model/seq2seq-files.js';
import { checkDramBudget, resolveBudget, type DramCheck } from './dram/dram-check.js';
import { estimateDram, type DramEstimate } from './dram/estimate.js';
import { checkDramProvider } from './dram/measure.js';
import { judgeWeights, measureWhenAsked, type EdgeCheckOptions } from './edge-check.js';
import { buildInspectReport, optionalConfigBeside, type InspectReport } from './report/inspect-report.js';
import type { QuantizationCheck, WeightDtypeCheck } from './quantization/quantization-check.js';
import { countSeq2SeqParameters, readSeq2SeqGraphs, type Seq2SeqParameters } from './graph/seq2seq-parameters.js';
import { formatBytes } from './units.js';
import { combineVerdicts, type Verdict } from './verdict.js';

export interface Seq2SeqGraphCheck {
  readonly file: string;
  /** The graph's own report (file, opsets, inputs, outputs, bytes by dtype, ops). */
  readonly inspect: InspectReport;
  readonly quantization: QuantizationCheck;
  readonly weightDtypes: WeightDtypeCheck;
}

export interface Seq2SeqEdgeReport {
  readonly model: string;
  readonly layout: Seq2SeqLayout;
  readonly graphs: readonly Seq2SeqGraphCheck[];
  readonly parameters: Seq2SeqParameters;
  /** Bytes of every tensor of every graph: what loading the model puts in memory. */
  readonly tensorBytes: number;
  readonly quantization: { readonly verdict: Verdict };
  readonly weightDtypes: { readonly verdict: Verdict };
  readonly dram: DramCheck;
  readonly verdict: Verdict;
}

/** Every graph's weights and load overhead, and the largest working set of one graph's pass. */
function combinedEstimate(estimates: readonly DramEstimate[]): DramEstimate {
  const sum = (pick: (estimate: DramEstimate) => number): number => estimates.reduce((total, estimate) => total + pick(estimate), 0);
  const widest = estimates.reduce((best, estimate) =>
    estimate.kvCacheBytes + estimate.activationBytes > best.kvCacheBytes + best.activationBytes ? estimate : best,
  );
  const weightBytes = sum((estimate) => estimate.weightBytes);
  const runtimeBytes = sum((estimate) => estimate.runtimeBytes);
  const totalBytes = weightBytes + runtimeBytes + widest.kvCacheBytes + widest.activationBytes;
  return {
    ...widest,
    weightBytes,
    runtimeBytes,
    totalBytes,
    formula:
      `every graph's weights ${formatBytes(weightBytes)} and runtime ${formatBytes(runtimeBytes)} + the largest pass's working set ` +
      `${formatBytes(widest.kvCacheBytes + widest.activationBytes)} = ${formatBytes(totalBytes)}`,
    assumptions: [...new Set(estimates.flatMap((estimate) => estimate.assumptions))],
  };
}

export async function checkSeq2SeqEdgeModel(files: Seq2SeqFiles, options: EdgeCheckOptions = {}): Promise<Seq2SeqEdgeReport> {
  const budget = resolveBudget(options.track, options.dramBudgetBytes);
  checkDramProvider(options.provider);
  const { config, note } = optionalConfigBeside(files.encoder);
  const read = await readSeq2SeqGraphs(files);
  const graphs: Seq2SeqGraphCheck[] = read.map(({ file, graph, shape }) => ({
    file,
    inspect: buildInspectReport(graph, config, note, shape),
    ...judgeWeights(graph, options),
  }));
  const contextOptions = options.contextTokens === undefined ? {} : { contextTokens: options.contextTokens };
  // T5's relative_attention_bias is a table of position buckets, which the one-graph reading takes for a table of
  // positions; an encoder-decoder's positions are relative, so no table bounds its input.
  const relative = (report: InspectReport): InspectReport => ({ ...report, graph: { ...report.graph, positionLimit: null } });
  const estimate = combinedEstimate(graphs.map((graph) => estimateDram(relative(graph.inspect), contextOptions)));
  const { measurement, measurementError } = await measureWhenAsked(files.folder, estimate, options, budget !== null);
  const dram = checkDramBudget(estimate, measurement, budget, measurementError);
  const quantization = { verdict: combineVerdicts(graphs.map((graph) => graph.quantization.verdict)) };
  const weightDtypes = { verdict: combineVerdicts(graphs.map((graph) => graph.weightDtypes.verdict)) };
  return {
    model: files.folder,
    layout: files.layout,
    graphs,
    parameters: countSeq2SeqParameters(files, read),
    tensorBytes: graphs.reduce((total, graph) => total + graph.inspect.tensorBytes, 0),
    quantization,
    weightDtypes,
    dram,
    verdict: combineVerdicts([quantization.verdict, weightDtypes.verdict, dram.verdict]),
  };
}
