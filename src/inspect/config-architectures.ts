/**
 * Parameter formulas, one per architecture, as transformers builds each model from its config: every
 * module's weights and biases, the config class's defaults for switches a config.json may leave out, and
 * tied embeddings counted once (as num_parameters() does, since the LM head then is the embedding).
 * Rotary tables and attention masks are buffers, not parameters, so no formula counts them.
 * test/fixtures/edge/configs/ holds transformers' own figures for every branch here.
 */
import type { ConfigFields, FieldKeys } from './config-fields.js';

export interface ConfigWidths {
  readonly hidden: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  /** FFN channels per layer (GPT-2's n_inner, OPT's ffn_dim). */
  readonly intermediate: number;
  readonly layerCount: number;
  readonly vocab: number;
}

export interface ArchitectureCount {
  readonly widths: ConfigWidths;
  /** Parameters of one decoder layer; every layer of these architectures has the same. */
  readonly perLayer: number;
  /** Embeddings, final norm, projections and the LM head (only its bias when tied). */
  readonly outsideLayers: number;
  readonly tiedEmbeddings: boolean;
}

export interface ArchitectureFormula {
  readonly modelType: string;
  /** The causal-LM class config.json's `architectures` names, for configs without model_type. */
  readonly causalLmClass: string | null;
  readonly count: (fields: ConfigFields) => ArchitectureCount;
}

const linear = (inputs: number, outputs: number, bias: boolean): number => inputs * outputs + (bias ? outputs : 0);
const layerNorm = (width: number, affine = true): number => (affine ? 2 * width : 0);

/** The LM head: nothing of its own when tied to the embedding, except a bias (Phi keeps one). */
const lmHead = (width: number, vocab: number, tied: boolean, bias = false): number => (tied ? 0 : width * vocab) + (bias ? vocab : 0);

/** Widths stated the Llama way; head_dim and KV heads fall back as the config classes derive them. */
function llamaStyleWidths(fields: ConfigFields, kvHeadsIfAbsent?: number): ConfigWidths {
  const hidden = fields.size('hidden_size');
  const heads = fields.size('num_attention_heads');
  return {
    hidden, heads,
    kvHeads: fields.sizeOr('num_key_value_heads', kvHeadsIfAbsent ?? heads, heads),
    headDim: fields.sizeOr('head_dim', Math.floor(hidden / heads)),
    intermediate: fields.size('intermediate_size'),
    layerCount: fields.size('num_hidden_layers'),
    vocab: fields.size('vocab_size'),
  };
}

interface WidthKeys {
  readonly hidden: FieldKeys;
  readonly heads: FieldKeys;
  readonly layers: FieldKeys;
}
const STANDARD_KEYS: WidthKeys = { hidden: 'hidden_size', heads: 'num_attention_heads', layers: 'num_hidden_layers' };

/** Plain multi-head attention (GPT-2, GPT-NeoX, OPT): one KV head per head, head_dim is hidden // heads. */
function multiHeadWidths(fields: ConfigFields, intermediate: (hidden: number) => number, keys: WidthKeys = STANDARD_KEYS): ConfigWidths {
  const hidden = fields.size(keys.hidden);
  const heads = fields.size(keys.heads);
  return {
    hidden, heads, kvHeads: heads, headDim: Math.floor(hidden / heads), intermediate: intermediate(hidden),
    layerCount: fields.size(keys.layers), vocab: fields.size('vocab_size'),
  };
}

interface RmsDecoderRules {
  /** MistralConfig and Qwen2Config default num_key_value_heads to a number, not to the head count. */
  readonly kvHeadsIfAbsent?: number;
  readonly qkvBias: (fields: ConfigFields) => boolean;
  readonly outputBias: (fields: ConfigFields) => boolean;
  readonly mlpBias: (fields: ConfigFields) => boolean;
}

/**
 * Llama and its descendants: RMSNorm before attention and MLP, gated MLP, untied head by default. Phi-3's
 * fused qkv_proj and gate_up_proj hold exactly the separate projections' weights, so it counts the same.
 */
function rmsDecoder(rules: RmsDecoderRules) {
  return (fields: ConfigFields): ArchitectureCount => {
    const widths = llamaStyleWidths(fields, rules.kvHeadsIfAbsent);
    const { hidden, heads, kvHeads, headDim, intermediate, vocab } = widths;
    const qkvBias = rules.qkvBias(fields);
    const mlpBias = rules.mlpBias(fields);
    const attention = linear(hidden, heads * headDim, qkvBias) + 2 * linear(hidden, kvHeads * headDim, qkvBias)
      + linear(heads * headDim, hidden, rules.outputBias(fields));
    const mlp = 2 * linear(hidden, intermediate, mlpBias) + linear(intermediate, hidden, mlpBias);
    const tied = fields.flag('tie_word_embeddings', false);
    return { widths, perLayer: attention + mlp + 2 * hidden, outsideLayers: vocab * hidden + hidden + lmHead(hidden, vocab, tied), tiedEmbeddings: tied };
  };
}

const never = (): boolean => false;
const attentionBias = (fields: ConfigFields): boolean => fields.flag('attention_bias', false);

/** Phi (phi-1, phi-1.5, phi-2): partial rotary, biased q/k/v/dense and fc1/fc2, one LayerNorm per layer, biased LM head. */
function phi(fields: ConfigFields): ArchitectureCount {
  const widths = llamaStyleWidths(fields);
  const { hidden, heads, kvHeads, headDim, intermediate, vocab } = widths;
  // q_layernorm / k_layernorm are sized hidden // heads even when head_dim says otherwise.
  const qkNorms = fields.flag('qk_layernorm', false) ? 2 * layerNorm(Math.floor(hidden / heads)) : 0;
  const attention = linear(hidden, heads * headDim, true) + 2 * linear(hidden, kvHeads * headDim, true) + linear(heads * headDim, hidden, true);
  const mlp = linear(hidden, intermediate, true) + linear(intermediate, hidden, true);
  const tied = fields.flag('tie_word_embeddings', false);
  return {
    widths, perLayer: attention + qkNorms + mlp + layerNorm(hidden),
    outsideLayers: vocab * hidden + layerNorm(hidden) + lmHead(hidden, vocab, tied, true), tiedEmbeddings: tied,
  };
}

/** GPT-2: Conv1D layers with biases, learned positions, tied head by default; n_inner null means 4 x hidden. */
function gpt2(fields: ConfigFields): ArchitectureCount {
  const widths = multiHeadWidths(fields, (hidden) => fields.sizeOr('n_inner', 4 * hidden),
    { hidden: ['n_embd', 'hidden_size'], heads: ['n_head', 'num_attention_heads'], layers: ['n_layer', 'num_hidden_layers'] });
  const { hidden, intermediate, vocab } = widths;
  const block = 2 * layerNorm(hidden) + linear(hidden, 3 * hidden, true) + linear(hidden, hidden, true)
    + linear(hidden, intermediate, true) + linear(intermediate, hidden, true);
  // Cross-attention: keys and values from c_attn (2 x hidden), queries from q_attn, its own output and norm.
  const cross = fields.flag('add_cross_attention', false)
    ? linear(hidden, 2 * hidden, true) + 2 * linear(hidden, hidden, true) + layerNorm(hidden) : 0;
  const positions = fields.size(['n_positions', 'max_position_embeddings']);
  const tied = fields.flag('tie_word_embeddings', true);
  return { widths, perLayer: block + cross, outsideLayers: (vocab + positions) * hidden + layerNorm(hidden) + lmHead(hidden, vocab, tied), tiedEmbeddings: tied };
}

/** GPT-NeoX (Pythia): fused query_key_value, biases unless attention_bias is false, two LayerNorms per layer. */
function gptNeox(fields: ConfigFields): ArchitectureCount {
  const widths = multiHeadWidths(fields, () => fields.size('intermediate_size'));
  const { hidden } = widths;
  const bias = fields.flag('attention_bias', true);
  const perLayer = 2 * layerNorm(hidden) + linear(hidden, 3 * hidden, bias) + linear(hidden, hidden, bias)
    + linear(hidden, widths.intermediate, true) + linear(widths.intermediate, hidden, true);
  const tied = fields.flag('tie_word_embeddings', false);
  return { widths, perLayer, outsideLayers: widths.vocab * hidden + layerNorm(hidden) + lmHead(hidden, widths.vocab, tied), tiedEmbeddings: tied };
}

/**
 * OPT: learned positions with 2 extra rows (its padding offset), word embeddings of word_embed_proj_dim
 * projected in and out when that differs from hidden (opt-350m), and a final LayerNorm only in the
 * pre-norm layout.
 */
function opt(fields: ConfigFields): ArchitectureCount {
  const widths = multiHeadWidths(fields, () => fields.size('ffn_dim'));
  const { hidden } = widths;
  const bias = fields.flag('enable_bias', true);
  const affine = fields.flag('layer_norm_elementwise_affine', true);
  const perLayer = 4 * linear(hidden, hidden, bias) + 2 * layerNorm(hidden, affine)
    + linear(hidden, widths.intermediate, bias) + linear(widths.intermediate, hidden, bias);
  const wordWidth = fields.sizeOr('word_embed_proj_dim', hidden);
  const projections = wordWidth === hidden ? 0 : 2 * wordWidth * hidden;
  const finalNorm = fields.flag('do_layer_norm_before', true) && !fields.flag('_remove_final_layer_norm', false) ? layerNorm(hidden, affine) : 0;
  const positions = fields.size('max_position_embeddings') + 2;
  const tied = fields.flag('tie_word_embeddings', true);
  return {
    widths, perLayer,
    outsideLayers: widths.vocab * wordWidth + positions * hidden + projections + finalNorm + lmHead(wordWidth, widths.vocab, tied),
    tiedEmbeddings: tied,
  };
}

/**
 * This project's own test model (test/support/model-builders/tiny-causal-lm.ts writes its config.json): GPT-2's layout
 * (learned positions, LayerNorms with bias, biased projections) with grouped-query attention, and an LM
 * head the builder always writes separately. Not a transformers architecture: its reference is the
 * builder's tensor list.
 */
function tinyCausalLm(fields: ConfigFields): ArchitectureCount {
  const widths = llamaStyleWidths(fields);
  const { hidden, heads, kvHeads, headDim, intermediate, vocab } = widths;
  const perLayer = 2 * layerNorm(hidden) + linear(hidden, heads * headDim, true) + 2 * linear(hidden, kvHeads * headDim, true)
    + linear(heads * headDim, hidden, true) + linear(hidden, intermediate, true) + linear(intermediate, hidden, true);
  const positions = fields.size('max_position_embeddings');
  return { widths, perLayer, outsideLayers: (vocab + positions) * hidden + layerNorm(hidden) + lmHead(hidden, vocab, false), tiedEmbeddings: false };
}

export const ARCHITECTURE_FORMULAS: readonly ArchitectureFormula[] = [
  { modelType: 'phi', causalLmClass: 'PhiForCausalLM', count: phi },
  { modelType: 'phi3', causalLmClass: 'Phi3ForCausalLM', count: rmsDecoder({ qkvBias: never, outputBias: never, mlpBias: never }) },
  { modelType: 'llama', causalLmClass: 'LlamaForCausalLM', count: rmsDecoder({ qkvBias: attentionBias, outputBias: attentionBias, mlpBias: (fields) => fields.flag('mlp_bias', false) }) },
  { modelType: 'mistral', causalLmClass: 'MistralForCausalLM', count: rmsDecoder({ kvHeadsIfAbsent: 8, qkvBias: never, outputBias: never, mlpBias: never }) },
  { modelType: 'qwen2', causalLmClass: 'Qwen2ForCausalLM', count: rmsDecoder({ kvHeadsIfAbsent: 32, qkvBias: () => true, outputBias: never, mlpBias: never }) },
  { modelType: 'gpt2', causalLmClass: 'GPT2LMHeadModel', count: gpt2 },
  { modelType: 'gpt_neox', causalLmClass: 'GPTNeoXForCausalLM', count: gptNeox },
  { modelType: 'opt', causalLmClass: 'OPTForCausalLM', count: opt },
  { modelType: 'tiny_causal_lm', causalLmClass: null, count: tinyCausalLm },
];
