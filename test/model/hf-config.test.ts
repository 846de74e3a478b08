/**
 * src/model/hf-config is the one reader of a model's config.json. Three things are held here:
 * - its resolution of every field a config may leave out or null equals what transformers 5.18 built for the
 *   same file (test/fixtures/edge/hf-config-defaults.json, written by scripts/edge/hf_config_defaults.py);
 * - every consumer (the edge checks' architecture, the config base's parameter count, the scorer's metadata)
 *   sees the same architecture in one file, including the cases where the readers used to disagree;
 * - a crafted config (strings, negatives, fractions, 1e308, arrays, prototype keys, aliases that disagree) is
 *   refused by every consumer with BAD_MODEL naming the file and the field.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigParameters } from '../../src/inspect/config/parameters.js';
import { readHfArchitecture, resolveHfConfig } from '../../src/model/hf-config.js';
import { readModelMetadata } from '../../src/model/model-metadata.js';
import { addsBosForGemma } from '../../src/eval/request-encoding.js';
import { thrownMlrbError } from '../support/expect-mlrb-error.js';
import { makeTempDir } from '../support/temp-dirs.js';

interface Resolved {
  readonly numKeyValueHeads: number;
  readonly headDim: number;
  readonly intermediateSize: number;
  readonly tieWordEmbeddings: boolean;
  readonly partialRotaryFactor: number | null;
  readonly maxPositions: number;
}
interface DefaultsRecord {
  readonly case: string;
  readonly config: Record<string, unknown>;
  readonly resolved: Resolved | { readonly refused: string };
}

const DEFAULTS_FILE = path.resolve(import.meta.dirname, '../fixtures/edge/hf-config-defaults.json');
const recorded = JSON.parse(readFileSync(DEFAULTS_FILE, 'utf8')) as { transformers: string; records: DefaultsRecord[] };

describe("the resolver against transformers' config classes", () => {
  it('the recording covers every architecture the edge tracks see', () => {
    const types = new Set(recorded.records.map((record) => record.config['model_type']));
    expect([...types].sort()).toEqual(['gpt2', 'gpt_neox', 'llama', 'mistral', 'opt', 'phi', 'qwen2']);
    expect(recorded.transformers).toMatch(/^5\./);
  });

  it.each(recorded.records.map((record) => [record.case, record] as const))('%s', (_, record) => {
    if ('refused' in record.resolved) {
      const error = thrownMlrbError(() => resolveHfConfig(record.config, 'config.json'));
      expect(error.code).toBe('BAD_MODEL');
      expect(error.details).toMatchObject({ file: 'config.json', field: expect.any(String) });
      return;
    }
    const config = resolveHfConfig(record.config, 'config.json');
    expect({
      numKeyValueHeads: config.numKeyValueHeads,
      headDim: config.headDim,
      intermediateSize: config.intermediateSize,
      tieWordEmbeddings: config.tieWordEmbeddings,
      partialRotaryFactor: config.partialRotaryFactor,
      maxPositions: config.maxPositions,
    }).toEqual(record.resolved);
  });
});

/** A model folder holding config.json with `text` (raw text, so prototype keys reach the reader as written). */
function configFile(root: string, name: string, text: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  const file = path.join(dir, 'config.json');
  writeFileSync(file, text);
  return file;
}

/** What each consumer makes of one config.json: the edge checks, the config base's count, the scorer. */
function everyReading(file: string) {
  const architecture = readHfArchitecture(file);
  const counted = readConfigParameters(file);
  const metadata = readModelMetadata(path.dirname(file));
  return {
    edgeChecks: { kvHeads: architecture.numKeyValueHeads, headDim: architecture.headDim, hidden: architecture.hiddenSize, heads: architecture.numHeads },
    parameterCount: { kvHeads: counted.kvHeads, headDim: counted.headDim, hidden: counted.hidden, heads: counted.heads },
    scorer: { kvHeads: metadata.numKeyValueHeads, headDim: metadata.headDim, hidden: metadata.hiddenSize, heads: metadata.attentionHeads },
  };
}

const small = (fields: Record<string, unknown>): string =>
  JSON.stringify({
    vocab_size: 96,
    hidden_size: 128,
    num_hidden_layers: 2,
    num_attention_heads: 16,
    intermediate_size: 80,
    max_position_embeddings: 64,
    ...fields,
  });

describe('one architecture per file, whichever check reads it', () => {
  // Before, inspect and the scorer fell back to num_attention_heads for a missing num_key_value_heads
  // whatever the model_type, while the parameter count applied MistralConfig's 8 and Qwen2Config's 32.
  it.each([
    ['mistral', 8],
    ['qwen2', 32],
    ['llama', 16],
    ['phi', 16],
  ] as const)("%s without num_key_value_heads: %d KV heads everywhere (transformers' default)", (modelType, kvHeads) => {
    const root = makeTempDir('hf-config-kv');
    const file = configFile(root, modelType, small({ model_type: modelType }));
    const readings = everyReading(file);
    const expected = { kvHeads, headDim: 8, hidden: 128, heads: 16 };
    expect(readings).toEqual({ edgeChecks: expected, parameterCount: expected, scorer: expected });
  });

  it("a config named only by its architectures class gets that class's rules everywhere", () => {
    const root = makeTempDir('hf-config-class');
    const file = configFile(root, 'mistral', small({ architectures: ['MistralForCausalLM'] }));
    expect(new Set(Object.values(everyReading(file)).map((reading) => reading.kvHeads))).toEqual(new Set([8]));
  });

  it("GPT-2's names are GPT-2's: n_embd is its hidden size, and no KV-head or head_dim field changes its attention", () => {
    const root = makeTempDir('hf-config-gpt2');
    const file = configFile(
      root,
      'gpt2',
      JSON.stringify({
        model_type: 'gpt2',
        vocab_size: 96,
        n_embd: 128,
        n_layer: 2,
        n_head: 16,
        n_positions: 64,
        num_key_value_heads: 2,
        head_dim: 64,
      }),
    );
    const expected = { kvHeads: 16, headDim: 8, hidden: 128, heads: 16 };
    expect(everyReading(file)).toEqual({ edgeChecks: expected, parameterCount: expected, scorer: expected });
    expect(readConfigParameters(file).intermediate).toBe(4 * 128); // n_inner absent: 4 x hidden
  });

  it("a Llama config stating GPT-2's n_embd instead of hidden_size has no hidden size for any check", () => {
    const root = makeTempDir('hf-config-alias');
    const { hidden_size: _, ...fields } = JSON.parse(small({ model_type: 'llama' })) as Record<string, unknown>;
    const file = configFile(root, 'llama', JSON.stringify({ ...fields, n_embd: 4096 }));
    expect(thrownMlrbError(() => readHfArchitecture(file)).details).toMatchObject({ file, field: 'hidden_size' });
    expect(thrownMlrbError(() => readConfigParameters(file)).details).toMatchObject({ file, field: 'hidden_size' });
    expect(readModelMetadata(path.dirname(file)).hiddenSize).toBeNull();
  });

  it('tie_word_embeddings follows each class: GPT-2 and OPT tie by default, the others do not', () => {
    const tied = (fields: Record<string, unknown>) => resolveHfConfig(fields, 'config.json').tieWordEmbeddings;
    expect(tied({ model_type: 'gpt2' })).toBe(true);
    expect(tied({ model_type: 'opt' })).toBe(true);
    expect(tied({ model_type: 'llama' })).toBe(false);
    expect(tied({ model_type: 'some_new_lm' })).toBeNull(); // no rules: the graph decides, as before
  });
});

describe("the scorer's model_type: config.json's own string, which lm-eval v0.4.4–v0.4.8's Gemma rule reads", () => {
  it.each([
    ['gemma', 'gemma', true],
    ['gemma2 (no rules of its own here)', 'gemma2', true],
    ['recurrent_gemma', 'recurrent_gemma', true],
    ['llama', 'llama', false],
    ['"Gemma" (lm-eval\'s test is case-sensitive)', 'Gemma', false],
    ['none stated', undefined, false],
  ] as const)('%s', (_, modelType, gemma) => {
    const root = makeTempDir('hf-config-model-type');
    const file = configFile(root, 'model', small(modelType === undefined ? { architectures: ['LlamaForCausalLM'] } : { model_type: modelType }));
    const metadata = readModelMetadata(path.dirname(file));
    expect(metadata.modelType).toBe(modelType ?? null);
    expect(addsBosForGemma('0.4.4-0.4.8', metadata)).toBe(gemma);
    expect(addsBosForGemma('0.4.13', metadata)).toBe(false);
  });
});

describe('EXPECTED FAILURE – a crafted config.json is refused by every reader, naming the file and the field', () => {
  const hostile: readonly (readonly [string, string, string])[] = [
    ['a string where a size belongs', small({ model_type: 'llama', num_key_value_heads: '4' }), 'num_key_value_heads'],
    ['a negative size', small({ model_type: 'llama', num_attention_heads: -16 }), 'num_attention_heads'],
    ['a fractional size', small({ model_type: 'llama', hidden_size: 127.5 }), 'hidden_size'],
    ['zero layers', small({ model_type: 'llama', num_hidden_layers: 0 }), 'num_hidden_layers'],
    ['1e308', small({ model_type: 'llama', vocab_size: 1e308 }), 'vocab_size'],
    ['a size above 2^24', small({ model_type: 'llama', intermediate_size: 2 ** 24 + 1 }), 'intermediate_size'],
    ['an array where a size belongs', small({ model_type: 'llama', head_dim: [8] }), 'head_dim'],
    ['"NaN" (JSON has no NaN)', small({ model_type: 'llama', head_dim: 'NaN' }), 'head_dim'],
    ['a string where a switch belongs', small({ model_type: 'llama', tie_word_embeddings: 'false' }), 'tie_word_embeddings'],
    ['a null switch (transformers refuses it too)', small({ model_type: 'gpt2', tie_word_embeddings: null }), 'tie_word_embeddings'],
    ['a partial_rotary_factor above 1', small({ model_type: 'phi', partial_rotary_factor: 2 }), 'partial_rotary_factor'],
    ['a model_type that is not a string', small({ model_type: ['llama'] }), 'model_type'],
    ['a null num_key_value_heads for Mistral (MistralConfig refuses it)', small({ model_type: 'mistral', num_key_value_heads: null }), 'num_key_value_heads'],
    ['hidden not a multiple of heads with no head_dim', small({ model_type: 'llama', hidden_size: 100 }), 'hidden_size'],
    [
      'GPT-2 aliases stating different widths',
      JSON.stringify({ model_type: 'gpt2', vocab_size: 96, n_embd: 128, hidden_size: 4096, n_layer: 2, n_head: 16, n_positions: 64 }),
      'n_embd / hidden_size',
    ],
    ['a __proto__ key', small({ model_type: 'llama' }).replace('{', '{"__proto__": {"num_key_value_heads": 1, "polluted": true}, '), '__proto__'],
    ['a constructor key', small({ model_type: 'llama' }).replace('{', '{"constructor": {"prototype": {"polluted": true}}, '), 'constructor'],
  ];

  it.each(hostile)('%s', (_, text, field) => {
    const root = makeTempDir('hf-config-hostile');
    const file = configFile(root, 'model', text);
    for (const read of [() => readHfArchitecture(file), () => readConfigParameters(file), () => readModelMetadata(path.dirname(file))]) {
      const error = thrownMlrbError(read);
      expect(error.code).toBe('BAD_MODEL');
      expect(error.details).toMatchObject({ file, field });
      expect(error.message).toContain(file);
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
