/**
 * Parameter formulas, one per architecture, as transformers builds each model from its config: every
 * module's weights and biases over the widths hf-config resolved (the one reader of config.json, which
 * applies each config class's defaults), the defaults of the bias and norm switches a config may leave out, and
 * tied embeddings counted once (as num_parameters() does, since the LM head then is the embedding).
 * Rotary tables and attention masks are buffers, not parameters, so no formula counts them.
 * test/fixtures/edge/configs/ holds transformers' own figures for every branch here.
 */
import { MlrbError } from '../../errors.js';
import type { HfArchitecture } from '../../model/hf-config.js';

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
  readonly count: (config: HfArchitecture) => ArchitectureCount;
}

const linear = (inputs: number, outputs: number, bias: boolean): number => inputs * outputs + (bias ? outputs : 0);
const layerNorm = (width: number, affine = true): number => (affine ? 2 * width : 0);

/** Rows of a learned position table: the config's maximum positions, which these architectures require. */
function learnedPositions(config: HfArchitecture): number {
  if (config.maxPositions === null) {
    throw new MlrbError('BAD_MODEL', `${config.source}: the maximum positions are not stated, and the learned position table needs them`, {
      file: config.source,
      field: 'max_position_embeddings',
    });
  }
  return config.maxPositions;
}

/** The LM head: nothing of its own when tied to the embedding, except a bias (Phi keeps one). */
const lmHead = (width: number, vocab: number, tied: boolean, bias = false): number => (tied ? 0 : width * vocab) + (bias ? vocab : 0);

/** The widths transformers builds from the config (hf-config resolved them); the FFN width is required. */
function widthsOf(config: HfArchitecture): ConfigWidths {
  const intermediate = config.intermediateSize;
  if (intermediate === null) {
    throw new MlrbError('BAD_MODEL', `${config.source}: the FFN width is not stated, and the parameter count needs it`, {
      file: config.source,
      field: 'intermediate_size',
    });
  }
  return {
    hidden: config.hiddenSize,
    heads: config.numHeads,
    kvHeads: config.numKeyValueHeads,
    headDim: config.headDim,
    intermediate,
    layerCount: config.numLayers,
    vocab: config.vocabSize,
  };
}

interface RmsDecoderRules {
  readonly qkvBias: (config: HfArchitecture) => boolean;
  readonly outputBias: (config: HfArchitecture) => boolean;
  readonly mlpBias: (config: HfArchitecture) => boolean;
}

/**
 * Llama and its descendants: RMSNorm before attention and MLP, gated MLP, untied head by default. Phi-3's
 * fused qkv_proj and gate_up_proj hold exactly the separate projections' weights, so it counts the same.
 */
function rmsDecoder(rules: RmsDecoderRules) {
  return (config: HfArchitecture): ArchitectureCount => {
    const widths = widthsOf(config);
    const { hidden, heads, kvHeads, headDim, intermediate, vocab } = widths;
    const qkvBias = rules.qkvBias(config);
    const mlpBias = rules.mlpBias(config);
    const attention =
      linear(hidden, heads * headDim, qkvBias) + 2 * linear(hidden, kvHeads * headDim, qkvBias) + linear(heads * headDim, hidden, rules.outputBias(config));
    const mlp = 2 * linear(hidden, intermediate, mlpBias) + linear(intermediate, hidden, mlpBias);
    const tied = config.tieWordEmbeddings === true;
    return { widths, perLayer: attention + mlp + 2 * hidden, outsideLayers: vocab * hidden + hidden + lmHead(hidden, vocab, tied), tiedEmbeddings: tied };
  };
}

const never = (): boolean => false;
const attentionBias = (config: HfArchitecture): boolean => config.flag('attention_bias', false);

/** Phi (phi-1, phi-1.5, phi-2): partial rotary, biased q/k/v/dense and fc1/fc2, one LayerNorm per layer, biased LM head. */
function phi(config: HfArchitecture): ArchitectureCount {
  const widths = widthsOf(config);
  const { hidden, heads, kvHeads, headDim, intermediate, vocab } = widths;
  // q_layernorm / k_layernorm are sized hidden // heads even when head_dim says otherwise.
  const qkNorms = config.flag('qk_layernorm', false) ? 2 * layerNorm(Math.floor(hidden / heads)) : 0;
  const attention = linear(hidden, heads * headDim, true) + 2 * linear(hidden, kvHeads * headDim, true) + linear(heads * headDim, hidden, true);
  const mlp = linear(hidden, intermediate, true) + linear(intermediate, hidden, true);
  const tied = config.tieWordEmbeddings === true;
  return {
    widths,
    perLayer: attention + qkNorms + mlp + layerNorm(hidden),
    outsideLayers: vocab * hidden + layerNorm(hidden) + lmHead(hidden, vocab, tied, true),
    tiedEmbeddings: tied,
  };
}

/** GPT-2: Conv1D layers with biases, learned positions, tied head by default; n_inner null means 4 x hidden. */
function gpt2(config: HfArchitecture): ArchitectureCount {
  const widths = widthsOf(config);
  const { hidden, intermediate, vocab } = widths;
  const block =
    2 * layerNorm(hidden) +
    linear(hidden, 3 * hidden, true) +
    linear(hidden, hidden, true) +
    linear(hidden, intermediate, true) +
    linear(intermediate, hidden, true);
  // Cross-attention: keys and values from c_attn (2 x hidden), queries from q_attn, its own output and norm.
  const cross = config.flag('add_cross_attention', false) ? linear(hidden, 2 * hidden, true) + 2 * linear(hidden, hidden, true) + layerNorm(hidden) : 0;
  const positions = learnedPositions(config);
  const tied = config.tieWordEmbeddings === true;
  return {
    widths,
    perLayer: block + cross,
    outsideLayers: (vocab + positions) * hidden + layerNorm(hidden) + lmHead(hidden, vocab, tied),
    tiedEmbeddings: tied,
  };
}

/** GPT-NeoX (Pythia): fused query_key_value, biases unless attention_bias is false, two LayerNorms per layer. */
function gptNeox(config: HfArchitecture): ArchitectureCount {
  const widths = widthsOf(config);
  const { hidden } = widths;
  const bias = config.flag('attention_bias', true);
  const perLayer =
    2 * layerNorm(hidden) +
    linear(hidden, 3 * hidden, bias) +
    linear(hidden, hidden, bias) +
    linear(hidden, widths.intermediate, true) +
    linear(widths.intermediate, hidden, true);
  const tied = config.tieWordEmbeddings === true;
  return { widths, perLayer, outsideLayers: widths.vocab * hidden + layerNorm(hidden) + lmHead(hidden, widths.vocab, tied), tiedEmbeddings: tied };
}

/**
 * OPT: learned positions with 2 extra rows (its padding offset), word embeddings of word_embed_proj_dim
 * projected in and out when that differs from hidden (opt-350m), and a final LayerNorm only in the
 * pre-norm layout.
 */
function opt(config: HfArchitecture): ArchitectureCount {
  const widths = widthsOf(config);
  const { hidden } = widths;
  const bias = config.flag('enable_bias', true);
  const affine = config.flag('layer_norm_elementwise_affine', true);
  const perLayer =
    4 * linear(hidden, hidden, bias) + 2 * layerNorm(hidden, affine) + linear(hidden, widths.intermediate, bias) + linear(widths.intermediate, hidden, bias);
  const wordWidth = config.extraSize('word_embed_proj_dim', hidden);
  const projections = wordWidth === hidden ? 0 : 2 * wordWidth * hidden;
  const finalNorm = config.flag('do_layer_norm_before', true) && !config.flag('_remove_final_layer_norm', false) ? layerNorm(hidden, affine) : 0;
  const positions = learnedPositions(config) + 2;
  const tied = config.tieWordEmbeddings === true;
  return {
    widths,
    perLayer,
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
function tinyCausalLm(config: HfArchitecture): ArchitectureCount {
  const widths = widthsOf(config);
  const { hidden, heads, kvHeads, headDim, intermediate, vocab } = widths;
  const perLayer =
    2 * layerNorm(hidden) +
    linear(hidden, heads * headDim, true) +
    2 * linear(hidden, kvHeads * headDim, true) +
    linear(heads * headDim, hidden, true) +
    linear(hidden, intermediate, true) +
    linear(intermediate, hidden, true);
  const positions = learnedPositions(config);
  return { widths, perLayer, outsideLayers: (vocab + positions) * hidden + layerNorm(hidden) + lmHead(hidden, vocab, false), tiedEmbeddings: false };
}

/**
 * T5 (T5ForConditionalGeneration, Flan-T5): one embedding shared by encoder, decoder and, when tied, the LM head;
 * per encoder layer self-attention (q, k, v, o, no biases) and a feed-forward (two input projections when gated,
 * "gated-gelu"), each after an RMSNorm weight; per decoder layer a cross-attention more; a relative-position bias
 * table (buckets × heads) in each stack's first layer, and each stack's final norm. The per-layer figure is an
 * encoder layer plus a decoder layer, over num_layers; decoder layers beyond (or short of) them are counted outside.
 */
function t5(config: HfArchitecture): ArchitectureCount {
  const widths = widthsOf(config);
  const { hidden, heads, headDim, intermediate, vocab, layerCount } = widths;
  const attention = 4 * hidden * heads * headDim;
  const gated = (config.feedForwardProj ?? 'relu').startsWith('gated-');
  const feedForward = (gated ? 3 : 2) * hidden * intermediate;
  const encoderLayer = attention + feedForward + 2 * hidden;
  const decoderLayer = 2 * attention + feedForward + 3 * hidden;
  const decoderLayers = config.numDecoderLayers ?? layerCount;
  const buckets = config.relativeAttentionBuckets ?? 32;
  const tied = config.tieWordEmbeddings === true;
  return {
    widths,
    perLayer: encoderLayer + decoderLayer,
    outsideLayers: vocab * hidden + 2 * (buckets * heads + hidden) + (decoderLayers - layerCount) * decoderLayer + lmHead(hidden, vocab, tied),
    tiedEmbeddings: tied,
  };
}

export const ARCHITECTURE_FORMULAS: readonly ArchitectureFormula[] = [
  { modelType: 't5', count: t5 },
  { modelType: 'phi', count: phi },
  { modelType: 'phi3', count: rmsDecoder({ qkvBias: never, outputBias: never, mlpBias: never }) },
  { modelType: 'llama', count: rmsDecoder({ qkvBias: attentionBias, outputBias: attentionBias, mlpBias: (config) => config.flag('mlp_bias', false) }) },
  { modelType: 'mistral', count: rmsDecoder({ qkvBias: never, outputBias: never, mlpBias: never }) },
  { modelType: 'qwen2', count: rmsDecoder({ qkvBias: () => true, outputBias: never, mlpBias: never }) },
  { modelType: 'gpt2', count: gpt2 },
  { modelType: 'gpt_neox', count: gptNeox },
  { modelType: 'opt', count: opt },
  { modelType: 'tiny_causal_lm', count: tinyCausalLm },
];
