/**
 * The whole `inspect` verdict for an edge track: metadata report, the weight rules (no quantization, FP16/FP32
 * weights) and the DRAM estimate (plus the measurement when there is a budget to judge), combined into one
 * pass/fail.
 */
import { checkDramBudget, resolveBudget, type DramCheck, type EdgeTrack } from './dram/dram-check.js';
import { estimateDram, type DramEstimate } from './dram/estimate.js';
import { checkDramProvider, measureDram, type DramMeasurement, type DramProbeProgress, type DramProvider } from './dram/measure.js';
import { isMlrbError } from '../errors.js';
import { buildInspectReport, optionalConfigBeside, type InspectReport } from './report/inspect-report.js';
import { readModelGraph, type ModelGraph } from './graph/model-graph.js';
import { checkWeights, type QuantizationCheck, type WeightChecks, type WeightDtypeCheck } from './quantization/quantization-check.js';
import { combineVerdicts, verdictOf, type Verdict } from './verdict.js';

export interface EdgeCheckOptions {
  readonly track?: EdgeTrack;
  /** Overrides the track's budget. */
  readonly dramBudgetBytes?: number;
  /** Context of the estimate and length of the measured input; default 2,000 or the max length. */
  readonly contextTokens?: number;
  /** Run the child-process measurement. Default: only when there is a budget to judge. */
  readonly measure?: boolean;
  /**
   * What weights that are floats but not FP16/FP32 (bfloat16, float64) do to the verdict. Default: 'fail' for a
   * track (its rule is FP16 or FP32), else 'warn'.
   */
  readonly bf16?: 'warn' | 'fail';
  readonly threads?: number;
  readonly ortLibrary?: string;
  /**
   * Where the measurement runs: 'cpu' (default; judged by peak RSS) or 'cuda' (judged by peak device memory,
   * as the Edge-LLM kit measured on the GPU). Anything else is a RangeError before any work.
   */
  readonly provider?: DramProvider;
  /** The DRAM measurement's progress (measureDram's onProgress). */
  readonly onDramProgress?: (progress: DramProbeProgress) => void;
}

export interface EdgeCheckReport {
  readonly inspect: InspectReport;
  readonly quantization: QuantizationCheck;
  readonly weightDtypes: WeightDtypeCheck;
  readonly dram: DramCheck;
  readonly verdict: Verdict;
}

export async function checkEdgeModel(modelPath: string, options: EdgeCheckOptions = {}): Promise<EdgeCheckReport> {
  const budget = resolveBudget(options.track, options.dramBudgetBytes);
  checkDramProvider(options.provider);
  const graph = await readModelGraph(modelPath);
  const { config, note } = optionalConfigBeside(modelPath);
  const inspect = buildInspectReport(graph, config, note);
  const { quantization, weightDtypes } = judgeWeights(graph, options);
  const estimate = estimateDram(inspect, options.contextTokens === undefined ? {} : { contextTokens: options.contextTokens });
  const { measurement, measurementError } = await measureWhenAsked(modelPath, estimate, options, budget !== null);
  const dram = checkDramBudget(estimate, measurement, budget, measurementError);
  return { inspect, quantization, weightDtypes, dram, verdict: combineVerdicts([quantization.verdict, weightDtypes.verdict, dram.verdict]) };
}

/**
 * The weight rules on one graph. bfloat16 is no quantization: only the dtype rule judges it, its findings promoted
 * to reasons when bf16 is 'fail' (the default for a track, whose rule is FP16 or FP32).
 */
export function judgeWeights(graph: ModelGraph, options: Pick<EdgeCheckOptions, 'bf16' | 'track'>): WeightChecks {
  const { quantization, weightDtypes: found } = checkWeights(graph, { bf16: 'warn' });
  const failsBf16 = (options.bf16 ?? (options.track === undefined ? 'warn' : 'fail')) === 'fail';
  return { quantization, weightDtypes: failsBf16 ? { ...found, verdict: verdictOf(found.verdict.warnings) } : found };
}

/**
 * The child-process measurement at the estimate's context, when asked for (by default: when there is a budget to
 * judge); a model that cannot be measured gives the error, which the budget check reports, rather than throwing.
 */
export async function measureWhenAsked(
  modelPath: string,
  estimate: DramEstimate,
  options: EdgeCheckOptions,
  hasBudget: boolean,
): Promise<{ measurement: DramMeasurement | null; measurementError: DramCheck['measurementError'] }> {
  if (!(options.measure ?? hasBudget)) return { measurement: null, measurementError: null };
  try {
    const measurement = await measureDram(modelPath, {
      tokens: estimate.contextTokens,
      provider: checkDramProvider(options.provider),
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
      ...(options.ortLibrary !== undefined ? { ortLibrary: options.ortLibrary } : {}),
      ...(options.onDramProgress !== undefined ? { onProgress: options.onDramProgress } : {}),
    });
    return { measurement, measurementError: null };
  } catch (error) {
    if (!isMlrbError(error)) throw error;
    return { measurement: null, measurementError: { code: error.code, message: error.message } };
  }
}
