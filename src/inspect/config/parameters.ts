/**
 * The exact parameter count of a Hugging Face config.json, from the config alone: what transformers'
 * model.num_parameters() reports for the causal LM it builds, plus the per-layer count and main widths a
 * pruning comparison needs. The config is read and resolved by hf-config (the same architecture every
 * other check sees); an architecture without a formula is refused, never guessed.
 */
import { MlrbError } from '../../errors.js';
import { ARCHITECTURE_FORMULAS, type ArchitectureFormula, type ConfigWidths } from './architectures.js';
import { readConfigJson, requireArchitecture, resolveHfConfig, type HfConfig } from '../../model/hf-config.js';

export type { ConfigWidths } from './architectures.js';

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

function formulaOf(config: HfConfig, json: Readonly<Record<string, unknown>>): ArchitectureFormula {
  const formula = ARCHITECTURE_FORMULAS.find((entry) => entry.modelType === config.modelType);
  if (formula) return formula;
  const stated = json['model_type'] ?? json['architectures'];
  if (stated === undefined || stated === null) {
    throw new MlrbError('BAD_MODEL', `${config.source} states neither model_type nor architectures, so its parameters cannot be counted`, {
      file: config.source,
      field: 'model_type',
    });
  }
  const what = json['model_type'] !== undefined && json['model_type'] !== null ? 'model_type' : 'architectures';
  throw new MlrbError(
    'BAD_MODEL',
    `${config.source}: ${what} ${JSON.stringify(stated)} has no parameter formula; supported model_type values: ${SUPPORTED_MODEL_TYPES.join(', ')}`,
    { file: config.source, field: what, supported: SUPPORTED_MODEL_TYPES },
  );
}

/** Counts a parsed config object; `source` names it in errors. */
export function countConfigParameters(json: Readonly<Record<string, unknown>>, source: string): ConfigParameters {
  const config = resolveHfConfig(json, source);
  const formula = formulaOf(config, json);
  const { widths, perLayer, outsideLayers, tiedEmbeddings } = formula.count(requireArchitecture(config));
  const total = outsideLayers + widths.layerCount * perLayer;
  if (!Number.isSafeInteger(total)) {
    throw new MlrbError('BAD_MODEL', `${source}: its widths make ${total} parameters, beyond any real model`, { file: source, field: 'num_hidden_layers' });
  }
  return { ...widths, source, modelType: formula.modelType, perLayer, outsideLayers, tiedEmbeddings, total };
}

/** Reads a config.json and counts its parameters. */
export function readConfigParameters(file: string): ConfigParameters {
  const { resolved, json } = readConfigJson(file);
  return countConfigParameters(json, resolved);
}
