/**
 * The whole `inspect` verdict for an edge track: metadata report, no-quantization check and DRAM
 * estimate (plus the measurement when there is a budget to judge), combined into one pass/fail.
 */
import { checkDramBudget, resolveBudget, type DramCheck, type EdgeTrack } from './dram-check.js';
import { estimateDram } from './dram-estimate.js';
import { checkDramProvider, measureDram, type DramMeasurement, type DramProbeProgress, type DramProvider } from './dram-measure.js';
import { isMlrbError } from '../errors.js';
import { buildInspectReport, optionalConfigBeside, type InspectReport } from './inspect-report.js';
import { readModelGraph } from './model-graph.js';
import { checkQuantization, type QuantizationCheck } from './quantization-check.js';
import { combineVerdicts, type Verdict } from './verdict.js';

export interface EdgeCheckOptions {
  readonly track?: EdgeTrack;
  /** Overrides the track's budget. */
  readonly dramBudgetBytes?: number;
  /** Context of the estimate and length of the measured input; default 2,000 or the max length. */
  readonly contextTokens?: number;
  /** Run the child-process measurement. Default: only when there is a budget to judge. */
  readonly measure?: boolean;
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
  readonly dram: DramCheck;
  readonly verdict: Verdict;
}

export async function checkEdgeModel(modelPath: string, options: EdgeCheckOptions = {}): Promise<EdgeCheckReport> {
  const budget = resolveBudget(options.track, options.dramBudgetBytes);
  const provider = checkDramProvider(options.provider);
  const graph = await readModelGraph(modelPath);
  const { config, note } = optionalConfigBeside(modelPath);
  const inspect = buildInspectReport(graph, config, note);
  const quantization = checkQuantization(graph, { bf16: options.bf16 ?? 'warn' });
  const estimate = estimateDram(inspect, options.contextTokens === undefined ? {} : { contextTokens: options.contextTokens });
  const shouldMeasure = options.measure ?? budget !== null;
  let measurement: DramMeasurement | null = null;
  let measurementError: DramCheck['measurementError'] = null;
  if (shouldMeasure) {
    try {
      measurement = await measureDram(modelPath, {
        tokens: estimate.contextTokens,
        provider,
        ...(options.threads !== undefined ? { threads: options.threads } : {}),
        ...(options.ortLibrary !== undefined ? { ortLibrary: options.ortLibrary } : {}),
        ...(options.onDramProgress !== undefined ? { onProgress: options.onDramProgress } : {}),
      });
    } catch (error) {
      if (!isMlrbError(error)) throw error;
      measurementError = { code: error.code, message: error.message };
    }
  }
  const dram = checkDramBudget(estimate, measurement, budget, measurementError);
  return { inspect, quantization, dram, verdict: combineVerdicts([quantization.verdict, dram.verdict]) };
}
