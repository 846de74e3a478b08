/**
 * The exact parameter count of a Hugging Face config.json, from the config alone: what transformers'
 * model.num_parameters() reports for the causal LM it builds, plus the per-layer count and main widths a
 * pruning comparison needs. The architecture is identified by model_type (or, when a config has none, by
 * the class its `architectures` names); an architecture without a formula is refused, never guessed.
 */
import { MlrbError } from '../errors.js';
import { ARCHITECTURE_FORMULAS, type ArchitectureFormula, type ConfigWidths } from './config-architectures.js';
import { ConfigFields } from './config-fields.js';
import { readConfigJson } from './hf-config.js';

export type { ConfigWidths } from './config-architectures.js';

export interface ConfigParameters extends ConfigWidths {
  readonly source: string;
  readonly modelType: string;
  /** Parameters of one decoder layer (all layers are alike). */
  readonly perLayer: number;
  /** Embeddings, final norm, projections and the untied LM head. */
  readonly outsideLayers: number;
  /** As num_parameters(): a tied LM head is the embedding, counted once. */
  readonly total: number;
  readonly tiedEmbeddings: boolean;
}

/** model_type values with a formula, for messages and docs. */
export const SUPPORTED_MODEL_TYPES: readonly string[] = ARCHITECTURE_FORMULAS.map((formula) => formula.modelType);

function unsupported(source: string, stated: string): MlrbError {
  return new MlrbError('BAD_DATA',
    `${source}: ${stated} has no parameter formula; supported model_type values: ${SUPPORTED_MODEL_TYPES.join(', ')}`,
    { file: source, supported: SUPPORTED_MODEL_TYPES });
}

function formulaOf(json: Readonly<Record<string, unknown>>, source: string): ArchitectureFormula {
  const modelType = json['model_type'];
  if (modelType !== undefined && modelType !== null) {
    const formula = ARCHITECTURE_FORMULAS.find((entry) => entry.modelType === modelType);
    if (!formula) throw unsupported(source, `model_type ${JSON.stringify(modelType)}`);
    return formula;
  }
  const classes = Array.isArray(json['architectures']) ? json['architectures'].filter((name): name is string => typeof name === 'string') : [];
  if (classes.length === 0) {
    throw new MlrbError('BAD_DATA', `${source} states neither model_type nor architectures, so its parameters cannot be counted`, { file: source });
  }
  const formula = ARCHITECTURE_FORMULAS.find((entry) => entry.causalLmClass !== null && classes.includes(entry.causalLmClass));
  if (!formula) throw unsupported(source, `architectures ${JSON.stringify(classes)}`);
  return formula;
}

/** Counts a parsed config object; `source` names it in errors. */
export function countConfigParameters(json: Readonly<Record<string, unknown>>, source: string): ConfigParameters {
  const formula = formulaOf(json, source);
  const { widths, perLayer, outsideLayers, tiedEmbeddings } = formula.count(new ConfigFields(json, source));
  return {
    ...widths, source, modelType: formula.modelType, perLayer, outsideLayers, tiedEmbeddings,
    total: outsideLayers + widths.layerCount * perLayer,
  };
}

/** Reads a config.json and counts its parameters. */
export function readConfigParameters(file: string): ConfigParameters {
  const { resolved, json } = readConfigJson(file);
  return countConfigParameters(json, resolved);
}
