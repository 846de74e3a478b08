/**
 * What a Hugging Face config.json may hold, checked before anything reads it. The file comes from the
 * submitter, so every field the edge checks or the scorer read has a type and a range here, and a value
 * outside it is refused (BAD_MODEL naming the file and the field) rather than coerced: a size must be a
 * positive integer no larger than MAX_CONFIG_SIZE (so 1e308, 2.5, -1, "64" and [64] are all refused),
 * a switch must be true or false. transformers 5.18 refuses the same strings and nulls in its config
 * classes. Fields nobody reads pass through unchecked.
 */
import { z } from 'zod';

/**
 * The largest size any config field may state: 2^24. It is above every real width, vocabulary or context
 * (a 10M-token context fits), and keeps each product of two sizes an exact float64 integer.
 */
export const MAX_CONFIG_SIZE = 2 ** 24;

const size = z.number().int().positive().max(MAX_CONFIG_SIZE).nullish();
const tokenId = z.number().int().nonnegative().max(MAX_CONFIG_SIZE);
const tokenIds = z.union([tokenId, z.array(tokenId).nonempty()]).nullish();
/** transformers refuses an explicit null for its boolean fields, so only absence means the default. */
const flag = z.boolean().optional();

/** Keys whose assignment would reach Object.prototype in a naive copy of the parsed JSON. */
export const FORBIDDEN_CONFIG_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

export const hfConfigSchema = z.looseObject({
  model_type: z.string().min(1).max(100).nullish(),
  architectures: z.array(z.string().max(200)).max(16).nullish(),
  // Widths, under the names each architecture uses (GPT-2: n_embd, n_head, n_layer, n_inner, n_positions; OPT: ffn_dim).
  hidden_size: size,
  n_embd: size,
  num_hidden_layers: size,
  n_layer: size,
  num_attention_heads: size,
  n_head: size,
  num_key_value_heads: size,
  head_dim: size,
  intermediate_size: size,
  n_inner: size,
  ffn_dim: size,
  word_embed_proj_dim: size,
  vocab_size: size,
  max_position_embeddings: size,
  n_positions: size,
  n_ctx: size,
  // T5's names (d_kv may differ from d_model / num_heads), and what an encoder-decoder's decoder starts from.
  d_model: size,
  num_heads: size,
  num_layers: size,
  num_decoder_layers: size,
  d_ff: size,
  d_kv: size,
  relative_attention_num_buckets: size,
  feed_forward_proj: z.string().max(100).optional(),
  is_encoder_decoder: flag,
  decoder_start_token_id: tokenId.nullish(),
  pad_token_id: tokenIds,
  partial_rotary_factor: z.number().positive().max(1).nullish(),
  bos_token_id: tokenIds,
  eos_token_id: tokenIds,
  // Switches the parameter formulas read.
  tie_word_embeddings: flag,
  attention_bias: flag,
  mlp_bias: flag,
  qk_layernorm: flag,
  add_cross_attention: flag,
  enable_bias: flag,
  layer_norm_elementwise_affine: flag,
  do_layer_norm_before: flag,
  _remove_final_layer_norm: flag,
});

export type HfConfigFields = z.infer<typeof hfConfigSchema>;
export type HfSwitch =
  | 'tie_word_embeddings'
  | 'attention_bias'
  | 'mlp_bias'
  | 'qk_layernorm'
  | 'add_cross_attention'
  | 'enable_bias'
  | 'layer_norm_elementwise_affine'
  | 'do_layer_norm_before'
  | '_remove_final_layer_norm';
