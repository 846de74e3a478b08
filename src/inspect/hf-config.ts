/**
 * The architecture a Hugging Face config.json states (Phi-2, GPT-2 / phi-msft, Llama-style key names),
 * used as the pruning base and to fill in what an ONNX graph does not say (heads, KV heads).
 */
import path from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../errors.js';
import { pathEntryExists } from '../io/regular-file.js';
import { readJsonFileUnder } from '../io/text-file.js';

export interface HfArchitecture {
  readonly hiddenSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  readonly numKeyValueHeads: number;
  readonly headDim: number;
  readonly intermediateSize: number;
  readonly vocabSize: number;
  readonly maxPositions: number | null;
  readonly tieWordEmbeddings: boolean | null;
  readonly source: string;
  /** Values the file did not state and that were derived by convention. */
  readonly assumptions: readonly string[];
}

const size = z.number().int().positive().nullish();
const configSchema = z.looseObject({
  hidden_size: size, n_embd: size, d_model: size,
  num_hidden_layers: size, n_layer: size, num_layers: size,
  num_attention_heads: size, n_head: size,
  num_key_value_heads: size, head_dim: size,
  intermediate_size: size, n_inner: size, ffn_dim: size,
  vocab_size: size,
  max_position_embeddings: size, n_positions: size,
  tie_word_embeddings: z.boolean().nullish(),
});

/**
 * A config.json as a JSON object, or BAD_MODEL naming the file (missing, not a regular file inside its own
 * folder, over the config cap, not JSON, not an object). Read under the file policy: it comes from the agent.
 */
export function readConfigJson(file: string): { readonly resolved: string; readonly json: Readonly<Record<string, unknown>> } {
  const resolved = path.resolve(file);
  if (!pathEntryExists(resolved)) throw new MlrbError('BAD_MODEL', `config file ${resolved} does not exist`, { file: resolved });
  const json = readJsonFileUnder(resolved, { kind: 'config', root: path.dirname(resolved), what: 'config.json' });
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new MlrbError('BAD_MODEL', `${resolved} is not a JSON object`, { file: resolved });
  }
  return { resolved, json: json as Record<string, unknown> };
}

export function readHfArchitecture(file: string): HfArchitecture {
  const { resolved, json } = readConfigJson(file);
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) throw new MlrbError('BAD_MODEL', `${resolved}: ${z.prettifyError(parsed.error)}`, { file: resolved });
  const config = parsed.data;
  const assumptions: string[] = [];
  const stated = (value: number | null | undefined, keys: string): number => {
    if (value === null || value === undefined) throw new MlrbError('BAD_MODEL', `${resolved} states no ${keys}`, { file: resolved });
    return value;
  };
  const hiddenSize = stated(config.hidden_size ?? config.n_embd ?? config.d_model, 'hidden_size (n_embd)');
  const numHeads = stated(config.num_attention_heads ?? config.n_head, 'num_attention_heads (n_head)');
  let intermediateSize = config.intermediate_size ?? config.n_inner ?? config.ffn_dim;
  if (intermediateSize === null || intermediateSize === undefined) {
    intermediateSize = 4 * hiddenSize; // GPT-2 / phi-msft convention for n_inner: null
    assumptions.push(`intermediate size 4 x hidden = ${intermediateSize} (not stated)`);
  }
  return {
    hiddenSize,
    numLayers: stated(config.num_hidden_layers ?? config.n_layer ?? config.num_layers, 'num_hidden_layers (n_layer)'),
    numHeads,
    numKeyValueHeads: config.num_key_value_heads ?? numHeads,
    headDim: config.head_dim ?? hiddenSize / numHeads,
    intermediateSize,
    vocabSize: stated(config.vocab_size, 'vocab_size'),
    maxPositions: config.max_position_embeddings ?? config.n_positions ?? null,
    tieWordEmbeddings: config.tie_word_embeddings ?? null,
    source: resolved,
    assumptions,
  };
}

/** config.json beside a model file, when there is one. */
export function hfArchitectureBeside(modelPath: string): HfArchitecture | null {
  const file = path.join(path.dirname(path.resolve(modelPath)), 'config.json');
  return pathEntryExists(file) ? readHfArchitecture(file) : null;
}
