/**
 * How transformers 5.18 fills in each architecture's config: the names it reads a width under, and what it
 * uses when num_key_value_heads, head_dim, the FFN width, tie_word_embeddings or partial_rotary_factor is
 * absent or null. test/fixtures/edge/hf-config-defaults.json records what transformers built for each case
 * (scripts/edge/hf_config_defaults.py); test/model/hf-config.test.ts holds these rules to it.
 */

/** A field under its name or names, first stated wins; stating two of them with different values is refused. */
export type FieldNames = readonly [string, ...string[]];

/** What a field that is absent or null resolves to: a number, the head count, hidden / heads, or a refusal. */
export type Fallback = number | 'heads' | 'derived' | 'refused';

export interface ArchitectureRules {
  /** model_type as config.json states it; null for the rules applied to a model_type not listed here. */
  readonly modelType: string | null;
  /** The causal-LM class `architectures` names, for configs without model_type. */
  readonly causalLmClass: string | null;
  readonly names: {
    readonly hidden: FieldNames;
    readonly heads: FieldNames;
    readonly layers: FieldNames;
    readonly intermediate: FieldNames;
    readonly positions: FieldNames;
    /** The head size, when the file states it apart from hidden / heads. */
    readonly headDim: FieldNames;
  };
  /** null: the architecture has one KV head per head whatever the file says (fused QKV attention). */
  readonly kvHeads: { readonly ifAbsent: Fallback; readonly ifNull: Fallback } | null;
  /** null: head_dim is always hidden / heads, a head_dim field is ignored. */
  readonly headDim: { readonly ifNull: Fallback } | null;
  /** FFN width when its field is absent or null, as a multiple of hidden (GPT-2's n_inner); null: required. */
  readonly intermediateTimesHidden: number | null;
  /** tie_word_embeddings when absent; null: unknown (an unlisted architecture: the graph decides). */
  readonly tiedByDefault: boolean | null;
  readonly partialRotaryFactorByDefault: number | null;
}

const STANDARD = {
  hidden: ['hidden_size'],
  heads: ['num_attention_heads'],
  layers: ['num_hidden_layers'],
  intermediate: ['intermediate_size'],
  positions: ['max_position_embeddings'],
  headDim: ['head_dim'],
} as const satisfies ArchitectureRules['names'];

/** Llama's descendants: grouped-query attention, head_dim may be stated. */
function rotaryDecoder(modelType: string | null, causalLmClass: string | null, overrides: Partial<ArchitectureRules> = {}): ArchitectureRules {
  return {
    modelType,
    causalLmClass,
    names: STANDARD,
    kvHeads: { ifAbsent: 'heads', ifNull: 'heads' },
    headDim: { ifNull: 'derived' },
    intermediateTimesHidden: null,
    tiedByDefault: false,
    partialRotaryFactorByDefault: null,
    ...overrides,
  };
}

/** Plain multi-head attention with learned or rotary positions: KV heads and head_dim fields are ignored. */
function multiHead(modelType: string, causalLmClass: string, overrides: Partial<ArchitectureRules>): ArchitectureRules {
  return {
    modelType,
    causalLmClass,
    names: STANDARD,
    kvHeads: null,
    headDim: null,
    intermediateTimesHidden: null,
    tiedByDefault: false,
    partialRotaryFactorByDefault: null,
    ...overrides,
  };
}

export const ARCHITECTURE_RULES: readonly ArchitectureRules[] = [
  rotaryDecoder('llama', 'LlamaForCausalLM'),
  // MistralConfig: num_key_value_heads defaults to 8, and an explicit null is refused.
  rotaryDecoder('mistral', 'MistralForCausalLM', { kvHeads: { ifAbsent: 8, ifNull: 'refused' } }),
  // Qwen2Config: num_key_value_heads defaults to 32 (even above the head count), null means one per head;
  // an explicit null head_dim is refused.
  rotaryDecoder('qwen2', 'Qwen2ForCausalLM', { kvHeads: { ifAbsent: 32, ifNull: 'heads' }, headDim: { ifNull: 'refused' } }),
  rotaryDecoder('phi', 'PhiForCausalLM', { headDim: { ifNull: 'refused' }, partialRotaryFactorByDefault: 0.5 }),
  rotaryDecoder('phi3', 'Phi3ForCausalLM'),
  multiHead('gpt2', 'GPT2LMHeadModel', {
    // GPT2Config's attribute_map: hidden_size is n_embd and so on; n_inner null means 4 x hidden.
    names: {
      hidden: ['n_embd', 'hidden_size'],
      heads: ['n_head', 'num_attention_heads'],
      layers: ['n_layer', 'num_hidden_layers'],
      intermediate: ['n_inner'],
      positions: ['n_positions', 'max_position_embeddings'],
      headDim: ['head_dim'],
    },
    intermediateTimesHidden: 4,
    tiedByDefault: true,
  }),
  multiHead('gpt_neox', 'GPTNeoXForCausalLM', {}),
  multiHead('opt', 'OPTForCausalLM', { names: { ...STANDARD, intermediate: ['ffn_dim'] }, tiedByDefault: true }),
  // T5Config (encoder-decoder): its own names, d_kv stated apart from d_model / num_heads, one KV head per head.
  // lm-eval's max length is n_positions, which t5 and flan-t5 configs state though T5Config has no such field.
  // A file without tie_word_embeddings ties the head (and scales the decoder output); Flan-T5 states false.
  {
    modelType: 't5',
    causalLmClass: null,
    names: { hidden: ['d_model'], heads: ['num_heads'], layers: ['num_layers'], intermediate: ['d_ff'], positions: ['n_positions'], headDim: ['d_kv'] },
    kvHeads: null,
    headDim: { ifNull: 'refused' },
    intermediateTimesHidden: null,
    tiedByDefault: true,
    partialRotaryFactorByDefault: null,
  },
  // This project's own test model (test/support/model-builders/tiny-causal-lm.ts): Llama's names, an untied head.
  rotaryDecoder('tiny_causal_lm', null),
];

/**
 * A model_type with no rules of its own (the scorer and `inspect` take any causal LM): Llama's names with
 * GPT-2's as aliases, KV heads and head_dim as PretrainedConfig-derived classes fill them, tying unknown.
 */
export const GENERIC_RULES: ArchitectureRules = rotaryDecoder(null, null, {
  names: {
    hidden: ['hidden_size', 'n_embd'],
    heads: ['num_attention_heads', 'n_head'],
    layers: ['num_hidden_layers', 'n_layer'],
    intermediate: ['intermediate_size', 'n_inner'],
    positions: ['max_position_embeddings', 'n_positions', 'n_ctx'],
    headDim: ['head_dim'],
  },
  tiedByDefault: null,
});
