/**
 * Parameter counts from a config.json alone, against transformers' own figures (model.num_parameters() and
 * one decoder layer's parameters, recorded by scripts/edge/config_param_counts.py on the meta device), and
 * the pruning base built from them, which must not depend on the model being checked.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEdgeBase } from '../../support/model-builders/edge-fixtures.js';
import type { ModelProto } from '../../support/model-builders/onnx-builder.js';
import { buildTinyCausalLm, tinyLmConfigJson } from '../../support/model-builders/tiny-causal-lm.js';
import { describeShape } from '../../../src/inspect/graph/architecture.js';
import { countConfigParameters, readConfigParameters, SUPPORTED_MODEL_TYPES } from '../../../src/inspect/config/parameters.js';
import { buildModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { countParameters } from '../../../src/inspect/graph/parameters.js';
import { loadPruningBase } from '../../../src/inspect/pruning/base.js';
import { PHI2_PARAMETERS, phi2Info } from '../support/synthetic-phi2.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const CONFIGS = join(import.meta.dirname, '../../fixtures/edge/configs');
const configFile = (name: string): string => join(CONFIGS, `${name}.json`);

interface TransformersFigures {
  readonly class: string;
  readonly num_parameters: number;
  readonly layer_parameters: number;
  readonly widths: { hidden: number; heads: number; kvHeads: number; headDim: number; intermediate: number; layerCount: number; vocab: number };
}
const recorded = JSON.parse(readFileSync(join(CONFIGS, 'expected-counts.json'), 'utf8')) as { counts: Record<string, TransformersFigures> };
const figures = Object.entries(recorded.counts);

describe('parameters of a config.json, as transformers counts them', () => {
  it('covers every architecture with a transformers formula', () => {
    const covered = new Set(figures.map(([name]) => readConfigParameters(configFile(name)).modelType));
    expect([...covered].sort()).toEqual(SUPPORTED_MODEL_TYPES.filter((type) => type !== 'tiny_causal_lm').sort());
  });

  it.each(figures)('%s: num_parameters(), one layer and the widths', (name, expected) => {
    const counted = readConfigParameters(configFile(name));
    expect(counted.total).toBe(expected.num_parameters);
    expect(counted.perLayer).toBe(expected.layer_parameters);
    const { hidden, heads, kvHeads, headDim, intermediate, layerCount, vocab } = counted;
    expect({ hidden, heads, kvHeads, headDim, intermediate, layerCount, vocab }).toEqual(expected.widths);
  });

  it('Phi-2 has 2,779,683,840 parameters, its LM head untied', () => {
    const phi2 = readConfigParameters(configFile('phi-2'));
    expect(phi2.total).toBe(2_779_683_840);
    expect(phi2.tiedEmbeddings).toBe(false);
    expect([phi2.hidden, phi2.heads, phi2.headDim, phi2.intermediate, phi2.layerCount, phi2.vocab]).toEqual([2560, 32, 80, 10240, 32, 51200]);
  });

  it('identifies a config without model_type by the class in architectures', () => {
    expect(recorded.counts['llama-medium-gqa']).toBeDefined();
    expect(JSON.parse(readFileSync(configFile('llama-medium-gqa'), 'utf8'))).not.toHaveProperty('model_type');
    expect(readConfigParameters(configFile('llama-medium-gqa')).modelType).toBe('llama');
  });

  it("counts this project's tiny test LM as its builder writes it (with and without grouped-query attention)", () => {
    for (const options of [{}, { kvRepeat: 2, numHeads: 4, hiddenSize: 32 }]) {
      const lm = buildTinyCausalLm(options);
      const counted = countConfigParameters(tinyLmConfigJson(lm.options), 'tiny config');
      expect(counted.total).toBe(floatParameters(lm.model));
    }
  });
});

describe('BAD MODEL – configs without a formula or with unusable fields', () => {
  const failure = (json: Record<string, unknown>): unknown => {
    try {
      return countConfigParameters(json, 'test-config.json');
    } catch (error) {
      return error;
    }
  };
  const phi2 = JSON.parse(readFileSync(configFile('phi-2'), 'utf8')) as Record<string, unknown>;

  it('an unknown model_type is named, with the supported ones listed', () => {
    const error = failure({ ...phi2, model_type: 'mamba' });
    expect(error).toMatchObject({ code: 'BAD_MODEL', details: { file: 'test-config.json' } });
    expect((error as Error).message).toContain('model_type "mamba"');
    for (const type of SUPPORTED_MODEL_TYPES) expect((error as Error).message).toContain(type);
  });

  it('an unknown class when model_type is absent, and a config stating neither', () => {
    const { model_type: _, ...withoutType } = phi2;
    expect(failure({ ...withoutType, architectures: ['MambaForCausalLM'] })).toMatchObject({
      code: 'BAD_MODEL',
      message: expect.stringContaining('MambaForCausalLM'),
    });
    const { architectures: __, ...neither } = withoutType;
    expect(failure(neither)).toMatchObject({ code: 'BAD_MODEL', message: expect.stringContaining('neither model_type nor architectures') });
  });

  it('a missing size, a size that is not a positive integer and a switch that is not boolean name the field', () => {
    const { vocab_size: _, ...noVocab } = phi2;
    expect(failure(noVocab)).toMatchObject({ code: 'BAD_MODEL', details: { field: 'vocab_size' } });
    expect(failure({ ...phi2, hidden_size: '2560' })).toMatchObject({ code: 'BAD_MODEL', details: { field: 'hidden_size' } });
    expect(failure({ ...phi2, num_hidden_layers: 0 })).toMatchObject({ code: 'BAD_MODEL', details: { field: 'num_hidden_layers' } });
    expect(failure({ ...phi2, tie_word_embeddings: 'false' })).toMatchObject({ code: 'BAD_MODEL', details: { field: 'tie_word_embeddings' } });
  });
});

/** Float tensors of rank >= 1 in the builder's list: the tiny LM's parameters, counted independently. */
function floatParameters(model: ModelProto): number {
  return model.graph.initializers
    .filter((tensor) => tensor.elementType === 'float32' && tensor.dims.length > 0)
    .reduce((sum, tensor) => sum + tensor.dims.reduce((product, dim) => product * dim, 1), 0);
}

describe("check-pruning's config base does not depend on the model checked", () => {
  const tempPath = useTempDirectory('config-base');

  // A config base is read from the config alone (loadPruningBase takes no checked model), so one reading stands for
  // whichever model, whole, pruned or another export, is compared with it.
  it('Phi-2: 2,779,683,840 and its per-layer figure', async () => {
    const phi2Layer = recorded.counts['phi-2']!.layer_parameters;
    const base = await loadPruningBase(configFile('phi-2'));
    expect(base.kind).toBe('config');
    expect(base.totalParams).toBe(PHI2_PARAMETERS);
    expect([...base.layers.values()].map((layer) => layer.params)).toEqual(Array(32).fill(phi2Layer));
  });

  it('an unpruned Phi-2 removes nothing against its own config', async () => {
    const graph = buildModelGraph(phi2Info());
    const shape = describeShape(graph);
    const base = await loadPruningBase(configFile('phi-2'));
    expect(countParameters(graph, shape).total - base.totalParams).toBe(0);
  });

  it("the tiny LM config: the base model's own count", async () => {
    const edge = buildEdgeBase();
    const file = tempPath('tiny-config.json');
    writeFileSync(file, JSON.stringify(tinyLmConfigJson(edge.options)));
    const base = await loadPruningBase(file);
    expect(base.totalParams).toBe(floatParameters(edge.model));
  });
});
