/**
 * The one reader of a model's Hugging Face config.json: the edge checks (inspect, the DRAM estimate, the
 * pruning base and its parameter count, lineage) and the scorer's model metadata all take the architecture
 * from here, so no two of them can see different models in one file. The file is checked against
 * hf-config-schema (anything malformed is refused, naming the file and the field), then each width is
 * resolved as transformers resolves it for the file's model_type (hf-config-rules): a config is either
 * refused or read one way, never two.
 */
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { hubSnapshotReadRoot } from '../io/hub-snapshot.js';
import { pathEntryExists } from '../io/regular-file.js';
import { readJsonFileUnder } from '../io/text-file.js';
import { ARCHITECTURE_RULES, GENERIC_RULES, type ArchitectureRules, type Fallback, type FieldNames } from './hf-config-rules.js';
import { FORBIDDEN_CONFIG_KEYS, hfConfigSchema, type HfConfigFields, type HfSwitch } from './hf-config-schema.js';

export interface HfConfig {
  readonly source: string;
  /** The rules applied: the file's model_type (or its `architectures` class), or null for generic rules. */
  readonly modelType: string | null;
  /** model_type exactly as the file states it (any string, rules or not); null when absent. */
  readonly statedModelType: string | null;
  readonly hiddenSize: number | null;
  readonly numLayers: number | null;
  readonly numHeads: number | null;
  readonly numKeyValueHeads: number | null;
  readonly headDim: number | null;
  readonly intermediateSize: number | null;
  readonly vocabSize: number | null;
  readonly maxPositions: number | null;
  /** null only for an architecture without rules that does not state it (the graph then decides). */
  readonly tieWordEmbeddings: boolean | null;
  readonly partialRotaryFactor: number | null;
  readonly bosTokenId: number | null;
  readonly eosTokenId: number | null;
  readonly padTokenId: number | null;
  /** config.json's is_encoder_decoder (T5's hub configs state true); null when the file leaves it out. */
  readonly isEncoderDecoder: boolean | null;
  /** The id an encoder-decoder's decoder starts from (T5: the pad id 0). */
  readonly decoderStartTokenId: number | null;
  /** An encoder-decoder's decoder layers, when they differ from `numLayers` (T5's num_decoder_layers). */
  readonly numDecoderLayers: number | null;
  /** T5's feed-forward kind ("relu", "gated-gelu" …): a gated one has two input projections. */
  readonly feedForwardProj: string | null;
  /** T5's relative-position buckets (the bias table of each stack's first layer). */
  readonly relativeAttentionBuckets: number | null;
  /** Values the file did not state and that were filled in by the architecture's convention. */
  readonly assumptions: readonly string[];
  /** A switch the parameter formulas read, or `ifAbsent` (the config class's default) when not stated. */
  readonly flag: (key: HfSwitch, ifAbsent: boolean) => boolean;
  /** A size only some architectures have (OPT's word_embed_proj_dim), or `ifAbsent`. */
  readonly extraSize: (key: 'word_embed_proj_dim', ifAbsent: number) => number;
}

/** An HfConfig whose core widths are all stated: what the edge checks reason about. */
export interface HfArchitecture extends HfConfig {
  readonly hiddenSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  readonly numKeyValueHeads: number;
  readonly headDim: number;
  readonly vocabSize: number;
}

function refusal(file: string, field: string, problem: string): MlrbError {
  return new MlrbError('BAD_MODEL', `${file}: ${field} ${problem}`, { file, field });
}

/**
 * A config.json as a JSON object, or BAD_MODEL naming the file (missing, not a regular file inside its own
 * folder or, in a hub-cache snapshot, its repository's, over the config cap, not JSON, not an object). Read under
 * the file policy: it comes from the agent.
 */
export function readConfigJson(file: string): { readonly resolved: string; readonly json: Readonly<Record<string, unknown>> } {
  const resolved = path.resolve(file);
  if (!pathEntryExists(resolved)) throw new MlrbError('BAD_MODEL', `config file ${resolved} does not exist`, { file: resolved });
  const root = hubSnapshotReadRoot(path.dirname(resolved), 'model');
  const json = readJsonFileUnder(resolved, { kind: 'config', root, what: path.basename(resolved) });
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new MlrbError('BAD_MODEL', `${resolved} is not a JSON object`, { file: resolved });
  }
  return { resolved, json: json as Record<string, unknown> };
}

function validated(json: Readonly<Record<string, unknown>>, source: string): HfConfigFields {
  const forbidden = FORBIDDEN_CONFIG_KEYS.find((key) => Object.hasOwn(json, key));
  if (forbidden !== undefined) throw refusal(source, forbidden, 'is not a config field (a prototype key is never read)');
  const parsed = hfConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.') || '(top level)';
    throw refusal(source, field, `is invalid: ${issue.message} (got ${JSON.stringify(valueAt(json, issue.path))?.slice(0, 80)})`);
  }
  return parsed.data;
}

function valueAt(json: unknown, keys: readonly PropertyKey[]): unknown {
  let value = json;
  for (const key of keys) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** The rules for the file's model_type, or for the causal-LM class it names when it has none. */
export function rulesFor(fields: HfConfigFields): ArchitectureRules {
  if (fields.model_type !== undefined && fields.model_type !== null) {
    return ARCHITECTURE_RULES.find((rules) => rules.modelType === fields.model_type) ?? GENERIC_RULES;
  }
  const classes = fields.architectures ?? [];
  return ARCHITECTURE_RULES.find((rules) => rules.causalLmClass !== null && classes.includes(rules.causalLmClass)) ?? GENERIC_RULES;
}

/** A width under any of its names: absent (undefined), null, or a number; two names disagreeing is refused. */
function stated(fields: HfConfigFields, names: FieldNames, source: string): number | null | undefined {
  const record = fields as Record<string, unknown>;
  const present = names.filter((name) => Object.hasOwn(record, name) && record[name] !== undefined);
  const values = new Set(present.map((name) => record[name]));
  if (values.size > 1)
    throw refusal(source, present.join(' / '), `state different values (${present.map((name) => `${name} ${JSON.stringify(record[name])}`).join(', ')})`);
  return present.length > 0 ? (record[present[0]!] as number | null) : undefined;
}

const firstId = (value: number | readonly number[] | null | undefined): number | null =>
  value === null || value === undefined ? null : typeof value === 'number' ? value : (value[0] ?? null);

/** Resolves a parsed config object as transformers does for its model_type; `source` names it in refusals. */
export function resolveHfConfig(json: Readonly<Record<string, unknown>>, source: string): HfConfig {
  const fields = validated(json, source);
  const rules = rulesFor(fields);
  const assumptions: string[] = [];
  const plain = (names: FieldNames): number | null => stated(fields, names, source) ?? null;

  const hiddenSize = plain(rules.names.hidden);
  const numHeads = plain(rules.names.heads);
  const derivedHeadDim = (): number | null => {
    if (hiddenSize === null || numHeads === null) return null;
    if (hiddenSize % numHeads !== 0) {
      throw refusal(source, rules.names.hidden[0], `${hiddenSize} is not a multiple of ${rules.names.heads[0]} ${numHeads}, and head_dim is not stated`);
    }
    return hiddenSize / numHeads;
  };
  const fallback = (name: string, value: Fallback, why: string): number | null => {
    if (value === 'refused') throw refusal(source, name, `is null, which ${rules.modelType ?? 'this architecture'} does not accept`);
    const resolved = value === 'heads' ? numHeads : value === 'derived' ? derivedHeadDim() : value;
    if (resolved !== null) assumptions.push(`${name} ${resolved} (${why})`);
    return resolved;
  };

  let headDim: number | null;
  const headDimField = stated(fields, rules.names.headDim, source);
  if (rules.headDim === null || headDimField === undefined) headDim = derivedHeadDim();
  else headDim = headDimField ?? fallback(rules.names.headDim[0], rules.headDim.ifNull, 'null: hidden / heads');

  let numKeyValueHeads: number | null = numHeads;
  if (rules.kvHeads !== null) {
    const kv = stated(fields, ['num_key_value_heads'], source);
    if (kv !== undefined && kv !== null) numKeyValueHeads = kv;
    else if (kv === null) numKeyValueHeads = fallback('num_key_value_heads', rules.kvHeads.ifNull, `null: the ${rules.modelType ?? 'generic'} convention`);
    else numKeyValueHeads = fallback('num_key_value_heads', rules.kvHeads.ifAbsent, `not stated: the ${rules.modelType ?? 'generic'} default`);
  }

  let intermediateSize = plain(rules.names.intermediate);
  if (intermediateSize === null && rules.intermediateTimesHidden !== null && hiddenSize !== null) {
    intermediateSize = rules.intermediateTimesHidden * hiddenSize;
    assumptions.push(`${rules.names.intermediate[0]} ${intermediateSize} (not stated: ${rules.intermediateTimesHidden} x hidden)`);
  }

  const record = fields as Record<string, unknown>;
  return {
    source,
    modelType: rules.modelType,
    statedModelType: fields.model_type ?? null,
    hiddenSize,
    numHeads,
    numKeyValueHeads,
    headDim,
    intermediateSize,
    numLayers: plain(rules.names.layers),
    vocabSize: plain(['vocab_size']),
    maxPositions: plain(rules.names.positions),
    tieWordEmbeddings: fields.tie_word_embeddings ?? rules.tiedByDefault,
    partialRotaryFactor: fields.partial_rotary_factor ?? rules.partialRotaryFactorByDefault,
    bosTokenId: firstId(fields.bos_token_id),
    eosTokenId: firstId(fields.eos_token_id),
    padTokenId: firstId(fields.pad_token_id),
    isEncoderDecoder: fields.is_encoder_decoder ?? null,
    decoderStartTokenId: fields.decoder_start_token_id ?? null,
    numDecoderLayers: plain(['num_decoder_layers']),
    feedForwardProj: fields.feed_forward_proj ?? null,
    relativeAttentionBuckets: plain(['relative_attention_num_buckets']),
    assumptions,
    flag: (key, ifAbsent) => (record[key] as boolean | undefined) ?? ifAbsent,
    extraSize: (key, ifAbsent) => (record[key] as number | null | undefined) ?? ifAbsent,
  };
}

/** The config with every core width present, or BAD_MODEL naming the first one it lacks. */
export function requireArchitecture(config: HfConfig): HfArchitecture {
  const rules = ARCHITECTURE_RULES.find((entry) => entry.modelType === config.modelType) ?? GENERIC_RULES;
  const need = (value: number | null, name: string): number => {
    if (value === null) throw refusal(config.source, name, 'is not stated, and the architecture needs it');
    return value;
  };
  return {
    ...config,
    hiddenSize: need(config.hiddenSize, rules.names.hidden.join(' / ')),
    numLayers: need(config.numLayers, rules.names.layers.join(' / ')),
    numHeads: need(config.numHeads, rules.names.heads.join(' / ')),
    numKeyValueHeads: need(config.numKeyValueHeads, 'num_key_value_heads'),
    headDim: need(config.headDim, 'head_dim'),
    vocabSize: need(config.vocabSize, 'vocab_size'),
  };
}

/** Reads and resolves a config.json file (see resolveHfConfig). */
export function readHfConfig(file: string): HfConfig {
  const { resolved, json } = readConfigJson(file);
  return resolveHfConfig(json, resolved);
}

/** Reads a config.json whose core widths must all be stated. */
export function readHfArchitecture(file: string): HfArchitecture {
  return requireArchitecture(readHfConfig(file));
}

/** config.json beside a model file, when there is one. */
export function hfArchitectureBeside(modelPath: string): HfArchitecture | null {
  const file = path.join(path.dirname(path.resolve(modelPath)), 'config.json');
  return pathEntryExists(file) ? readHfArchitecture(file) : null;
}
