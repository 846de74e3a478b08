/**
 * `check-pruning MODEL --base BASE`: is MODEL a structurally pruned BASE that really is smaller? Layer
 * mapping (by weights against an ONNX base, else names) and widths (pruning-layers), % of parameters
 * removed, shape consistency, fake pruning (zero and negligible channels), quantization (forbidden on
 * the compression track, so a quantized "pruned" model fails too) and a forward pass, folded into one
 * verdict. Unused initializers are not parameters: they are listed apart, with a warning.
 */
import { describeShape, type ModelShape } from '../graph/architecture.js';
import { detectFakePruning, type FakePruningReport } from './fake-pruning.js';
import { checkForwardPass, type ForwardCheck } from './forward-check.js';
import { checkLineage } from '../lineage/lineage-check.js';
import { layerOrigins, type LineageReport } from '../lineage/report.js';
import { structuralBasePath } from '../lineage/source.js';
import { matchLayersByWeights, renumberLayers } from '../graph/layer-match.js';
import { readModelGraph, type ModelGraph } from '../graph/model-graph.js';
import { countParameters } from '../graph/parameters.js';
import { loadPruningBase, type PruningBase } from './base.js';
import { compareLayers, type LayerComparison, type LayerMapping, type PruningLayerReport } from './layers.js';
import { checkWeights, type QuantizationCheck, type WeightDtypeCheck } from '../quantization/quantization-check.js';
import { verdictOf, type Verdict } from '../verdict.js';

export interface PruningCheckOptions {
  /** Base ONNX model, a Hugging Face safetensors checkpoint (folder) of it, or its config.json (no weights: lineage is not checked). */
  readonly base: string;
  readonly numHeads?: number;
  readonly sparsityThreshold?: number;
  /** What bfloat16 weights do to the verdict (the quantization check). Default 'warn'. */
  readonly bf16?: 'warn' | 'fail';
  /** Run the forward pass check. Default true. */
  readonly forwardPass?: boolean;
  readonly threads?: number;
  readonly ortLibrary?: string;
}

export interface PruningReport {
  readonly model: string;
  readonly base: Omit<PruningBase, 'layers'>;
  readonly pruned: { readonly hidden: number | null; readonly vocab: number | null; readonly layerCount: number; readonly params: number };
  readonly layerMapping: LayerMapping;
  readonly removedLayers: readonly number[];
  readonly paramsRemoved: number;
  readonly percentRemoved: number;
  readonly layers: readonly PruningLayerReport[];
  readonly consistencyIssues: readonly string[];
  readonly fakePruning: FakePruningReport;
  readonly quantization: QuantizationCheck;
  readonly weightDtypes: WeightDtypeCheck;
  /** Initializers of the pruned model that no output depends on (stored, so counted as parameters). */
  readonly unusedInitializers: readonly string[];
  /** How layers and parameters were recognized: the graph's residual stream, or tensor names. */
  readonly rolesFrom: ModelShape['rolesFrom'];
  readonly forwardPass: ForwardCheck | null;
  /** Whether the pruned model's weights come from the base's (status 'not-checked' for a config.json base). */
  readonly lineage: LineageReport;
  readonly verdict: Verdict;
}

export async function checkPruning(modelPath: string, options: PruningCheckOptions): Promise<PruningReport> {
  if (typeof options?.base !== 'string' || options.base === '') throw new TypeError('options.base must name the base ONNX model or config.json');
  const graph = await readModelGraph(modelPath);
  const described = describeShape(graph);
  // A safetensors checkpoint is compared by the config.json in its folder; its weights feed lineage.
  const base = await loadPruningBase(structuralBasePath(options.base), options.numHeads === undefined ? {} : { numHeads: options.numHeads });
  // Lineage aligns layers by their heads' weights, so it names a removed layer where norms cannot (shared or untrained).
  const lineage = await checkLineage(graph.info.path, options.base, { headDim: base.headDim });
  const matched = (base.kind === 'onnx' ? await matchWithOnnxBase(graph, described, base.source) : null) ?? layerOrigins(lineage);
  const shape = matched === null ? described : renumberLayers(described, matched);
  const params = countParameters(graph, shape).total;
  const { quantization, weightDtypes } = checkWeights(graph, options.bf16 === undefined ? {} : { bf16: options.bf16 });
  const fakePruning = await detectFakePruning(graph, shape, {
    headDim: base.headDim,
    ...(options.sparsityThreshold !== undefined ? { sparsityThreshold: options.sparsityThreshold } : {}),
    ...(options.threads !== undefined ? { threads: options.threads } : {}),
  });
  const comparison = compareLayers(base, shape, fakePruning.layers, matched !== null);
  const forwardPass =
    options.forwardPass === false
      ? null
      : await checkForwardPass(graph.info.path, {
          ...(options.threads !== undefined ? { threads: options.threads } : {}),
          ...(options.ortLibrary !== undefined ? { ortLibrary: options.ortLibrary } : {}),
        });

  const paramsRemoved = base.totalParams - params;
  const percentRemoved = base.totalParams > 0 ? (100 * paramsRemoved) / base.totalParams : 0;
  const reasons = [
    ...comparison.issues,
    ...fakePruning.reasons.map((reason) => `fake pruning: ${reason}`),
    ...quantization.verdict.reasons.map((reason) => `quantization: ${reason}`),
    ...weightDtypes.verdict.reasons.map((reason) => `dtype: ${reason}`),
    ...lineage.verdict.reasons.map((reason) => `lineage: ${reason}`),
  ];
  if (paramsRemoved <= 0 || !prunedAnything(comparison, shape, base)) {
    reasons.push(
      `no parameters were removed (${params.toLocaleString('en-US')} stored vs ${base.totalParams.toLocaleString('en-US')} in the base; no layer, layer weight, hidden width or vocabulary entry is gone)`,
    );
  }
  if (forwardPass && !forwardPass.ok) reasons.push(`the pruned model does not run: ${forwardPass.error?.message ?? 'unknown failure'}`);
  const warnings: string[] = [];
  if (comparison.mapping === 'renumbered-or-tail') {
    warnings.push(
      `layers are numbered 0..${shape.layers.length - 1}: the last ${comparison.removedLayers.length} were removed, unless the export renumbered them (names cannot tell)`,
    );
  }
  if (shape.unusedInitializers.length > 0) {
    warnings.push(
      `${shape.unusedInitializers.length} initializer(s) reach no graph output (stored, so counted as parameters): ${shape.unusedInitializers.slice(0, 5).join(', ')}`,
    );
  }
  warnings.push(...quantization.verdict.warnings.map((warning) => `quantization: ${warning}`));
  warnings.push(...weightDtypes.verdict.warnings.map((warning) => `dtype: ${warning}`));
  warnings.push(...lineage.verdict.warnings.map((warning) => `lineage: ${warning}`));
  if (fakePruning.unscanned.length > 0)
    warnings.push(`${fakePruning.unscanned.length} tensor(s) could not be zero-scanned: ${fakePruning.unscanned.slice(0, 5).join(', ')}`);
  const { layers: _layers, ...baseSummary } = base;
  return {
    model: graph.info.path,
    base: baseSummary,
    pruned: { hidden: shape.hidden, vocab: shape.vocab, layerCount: shape.layers.length, params },
    layerMapping: comparison.mapping,
    removedLayers: comparison.removedLayers,
    paramsRemoved,
    percentRemoved,
    layers: comparison.layers,
    consistencyIssues: comparison.issues,
    fakePruning,
    quantization,
    weightDtypes,
    unusedInitializers: shape.unusedInitializers,
    rolesFrom: shape.rolesFrom,
    forwardPass,
    lineage,
    verdict: verdictOf(reasons, warnings),
  };
}

/**
 * Whether the model lost any of the base's structure: a layer, weights within a layer (heads, channels, factors), the
 * hidden width or vocabulary entries. The stored count alone cannot say: two exporters store different shape
 * constants and caches, so an unpruned re-export can hold fewer elements than its base.
 */
function prunedAnything(comparison: LayerComparison, shape: ModelShape, base: PruningBase): boolean {
  const layerShrank = comparison.layers.some(({ params }) => params.base !== null && params.kept !== null && params.kept < params.base);
  return (
    comparison.removedLayers.length > 0 ||
    layerShrank ||
    (shape.vocab !== null && shape.vocab < base.vocab) ||
    (shape.hidden !== null && shape.hidden < base.hidden)
  );
}

/** Pruned layer → base layer by weights; null when the base's weights cannot decide (see graph-layer-match). */
async function matchWithOnnxBase(graph: ModelGraph, shape: ModelShape, basePath: string): Promise<Map<number, number> | null> {
  const baseGraph = await readModelGraph(basePath);
  return matchLayersByWeights(graph, shape, baseGraph, describeShape(baseGraph));
}
