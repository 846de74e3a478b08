/**
 * Edge-track checks as a library: the same objects the `inspect` and `check-pruning` commands print.
 */
export { describeShape, isParameter, type LayerShape, type ModelShape, type Projection } from './graph/architecture.js';
export { checkDramBudget, EDGE_TRACKS, resolveBudget, type DramBudget, type DramCheck, type EdgeTrack } from './dram/dram-check.js';
export { DEFAULT_CONTEXT_TOKENS, estimateDram, type DramEstimate, type DramEstimateOptions } from './dram/estimate.js';
export {
  DRAM_PROBE_KINDS,
  DRAM_PROVIDERS,
  measureDram,
  type DramMeasurement,
  type DramProbe,
  type DramProbeKind,
  type DramProvider,
  type MeasureDramOptions,
} from './dram/measure.js';
export { DRAM_TEXT_SOURCE } from './dram/text.js';
export type { RebuiltRotaryCache } from './graph/rotary-cache.js';
export { checkEdgeModel, type EdgeCheckOptions, type EdgeCheckReport } from './edge-check.js';
export { DEFAULT_SPARSITY_THRESHOLD, detectFakePruning, type FakePruningReport, type LayerZeros } from './pruning/fake-pruning.js';
export { formatEdgeReport } from './report/format.js';
export { formatPruningReport } from './pruning/format.js';
export { checkForwardPass, type ForwardCheck } from './pruning/forward-check.js';
export { countConfigParameters, readConfigParameters, type ConfigParameters, type ConfigWidths } from './config/parameters.js';
export { readHfArchitecture, type HfArchitecture } from '../model/hf-config.js';
export { buildInspectReport, inspectModel, type ArchitectureSummary, type InspectReport, type TensorSummary } from './report/inspect-report.js';
export { buildModelGraph, readModelGraph, type ModelGraph, type ModelTensor } from './graph/model-graph.js';
export type { ParameterTotals, TiedEmbeddings } from './graph/parameters.js';
export { checkLineage, lineageOptionsSchema, type LineageOptions } from './lineage/lineage-check.js';
export { ATTENTION_SAMPLES, FFN_SAMPLES, VOCAB_SAMPLES } from './lineage/hidden.js';
export type { LayerLineage, LineageReport, UnitLineage } from './lineage/report.js';
export { openSafetensorsCheckpoint, type SafetensorsCheckpoint } from './lineage/safetensors-checkpoint.js';
export { checkPruning, type PruningCheckOptions, type PruningReport } from './pruning/pruning-check.js';
export type { PruningLayerReport } from './pruning/layers.js';
export {
  checkQuantization,
  checkWeights,
  isQuantizationOp,
  type IntegerStorage,
  type LowCardinalityWeight,
  type PathStep,
  type QuantizationCheck,
  type QuantizationNode,
  type QuantizationOptions,
  type QuantizedTensor,
  type WeightChecks,
  type WeightDtypeCheck,
  type WeightFinding,
} from './quantization/quantization-check.js';
export { SMALL_CONSTANT } from './quantization/weight-provenance.js';
export { EDGE_TRACKS as EDGE_TRACK_RULES, limitFigures, type LimitFigures, type TrackRules } from './track/rules.js';
export { judgeDerivation, type DerivationCheck } from './track/derivation-check.js';
export { classifyTensors, type TensorRole } from './graph/tensor-roles.js';
export { formatBytes, parseByteSize } from './units.js';
export { combineVerdicts, verdictOf, type Verdict } from './verdict.js';
export { scanTensorZeros, type TensorZeros, type ZeroScanOutcome } from './graph/zero-scan.js';
