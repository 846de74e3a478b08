/**
 * config.json against the graph: the inspect report warns about every figure the two disagree on, since the
 * DRAM context, the estimate's dimensions and the track rules must follow the graph that runs. The graph's
 * figures below are the edge fixture's own (hidden 32, 3 layers, FFN 64, vocab 64, 64 positions).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEdgeBase, writeEdgeModel } from '../../support/model-builders/edge-fixtures.js';
import { tinyLmConfigJson } from '../../support/model-builders/tiny-causal-lm.js';
import { checkEdgeModel } from '../../../src/inspect/edge-check.js';
import { formatEdgeReport } from '../../../src/inspect/report/format.js';
import { inspectModel } from '../../../src/inspect/report/inspect-report.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('dram-config-graph');
const base = buildEdgeBase();

function writeWithConfig(name: string, overrides: Record<string, number>): string {
  const modelPath = writeEdgeModel(tempPath(name), base, base.model);
  writeFileSync(path.join(path.dirname(modelPath), 'config.json'), JSON.stringify({ ...tinyLmConfigJson(base.options), ...overrides }));
  return modelPath;
}

describe('config.json vs the graph', () => {
  it("a config that matches the graph gives no warnings, and the graph's own limits are reported", async () => {
    const report = await inspectModel(writeWithConfig('matching', {}));
    expect(report.configWarnings).toEqual([]);
    expect(report.graph).toEqual({
      positionLimit: { tensor: 'position_embedding', rows: 64, kind: 'learned' },
      rotaryCaches: [],
      attention: 'decomposed',
      fusedHeads: null,
      logitsType: 'float32',
    });
  });

  it('EXPECTED FAILURE – every disagreement is a warning naming the key, both figures and where the graph says so', async () => {
    const lying = writeWithConfig('lying', { vocab_size: 100, hidden_size: 48, num_hidden_layers: 4, intermediate_size: 128, max_position_embeddings: 2048 });
    const report = await inspectModel(lying);
    expect(report.configWarnings).toEqual([
      "config.json states vocab_size 100, but the graph has 64 (the graph's token embedding / LM head); the graph is what runs",
      "config.json states hidden_size 48, but the graph has 32 (the graph's hidden size); the graph is what runs",
      'config.json states num_hidden_layers 4, but the graph has 3 (layers in the graph); the graph is what runs',
      "config.json states intermediate_size 128, but the graph has 64 (the graph's widest FFN); the graph is what runs",
      "config.json states max_position_embeddings 2,048, but the graph has 64 (rows of the graph's position table position_embedding); the graph is what runs",
    ]);
    const text = formatEdgeReport(await checkEdgeModel(lying, { measure: false }));
    expect(text).toContain('\nGraph: longest input 64 tokens (position table position_embedding) · attention decomposed · logits float32\n');
    expect(text).toContain('\n  ! config.json states max_position_embeddings 2,048, but the graph has 64');
  });

  it("EXPECTED FAILURE – KV heads a config leaves out are its model_type's default, and a graph with others is a warning", async () => {
    // MistralConfig defaults num_key_value_heads to 8; this graph has 4 (one per head).
    const modelPath = writeEdgeModel(tempPath('mistral-default-kv'), base, base.model);
    const { num_key_value_heads: _, ...stated } = tinyLmConfigJson(base.options);
    writeFileSync(path.join(path.dirname(modelPath), 'config.json'), JSON.stringify({ ...stated, model_type: 'mistral' }));
    const report = await inspectModel(modelPath);
    expect(report.configWarnings).toEqual([
      "config.json states num_key_value_heads 8, but the graph has 4 (the graph's widest key projection over head_dim 8); the graph is what runs",
    ]);
    expect(report.architecture.kvHeads).toBe(4);
  });
});
