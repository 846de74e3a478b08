/**
 * The load budget: a graph of more than 300,000 nodes or initializers (native/onnx/graph_budget.h says why that is
 * far above real language models) is refused as BAD_MODEL naming the limit, after one pass over the file's
 * metadata, by every path that loads or reads a model: scoring (rewritten or plain), generation and inspect. A
 * million Identity nodes (30 MB) used to hold a scoring load for minutes. The operations run in a child with a
 * time limit (run-hostile.ts), so a regression fails the test instead of hanging the worker.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFullBlimp } from '../support/full-blimp.js';
import { writeIdentityChainModel, writeManyInitializersModel } from '../support/odd-models.js';
import { runHostile } from '../support/run-hostile.js';
import { makeTempDir } from '../support/temp-dirs.js';

const root = makeTempDir('graph-budget');
const blimp = writeFullBlimp(path.join(root, 'blimp'), ['adjunct_island']);
const scoreArgs = ['--suite', 'blimp', '--data', blimp, '--allow-partial', '--no-cache', '--quiet'];

describe('the node and initializer caps', () => {
  it('EXPECTED FAILURE – 10^6 Identity nodes (30 MB): a clean BAD_MODEL naming the limit from scoring, generation and inspect, in seconds', {
    timeout: 120_000,
  }, async () => {
    const model = writeIdentityChainModel(path.join(root, 'identity-1m'), 1_000_000);
    expect(statSync(model).size).toBeGreaterThan(25_000_000);
    const outcomes = await runHostile(
      [
        { op: 'cli', args: [model, ...scoreArgs] },
        { op: 'cli', args: [model, ...scoreArgs, '--no-cpu-fusion'] },
        { op: 'cli', args: ['generate', model, '--prompt', 'the cat'] },
        { op: 'cli', args: ['inspect', model] },
      ],
      90_000,
    );
    const refusal =
      /^mlrb-eval: error \[BAD_MODEL\]: .*identity-1m[/\\]model\.onnx has more than 300,000 nodes \(counted over its graph, subgraphs and functions\), the limit/m;
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ exitCode: 1, message: expect.stringMatching(refusal) });
      expect(outcome.ms).toBeLessThan(15_000);
    }
  });

  it('EXPECTED FAILURE – 300,001 initializers: BAD_MODEL naming the initializer limit', { timeout: 60_000 }, async () => {
    const model = writeManyInitializersModel(path.join(root, 'initializers'), 300_001);
    const outcomes = await runHostile([
      { op: 'cli', args: [model, ...scoreArgs] },
      { op: 'cli', args: ['inspect', model] },
    ]);
    const refusal = /^mlrb-eval: error \[BAD_MODEL\]: .*initializers[/\\]model\.onnx has more than 300,000 initializers/m;
    for (const outcome of outcomes) expect(outcome).toMatchObject({ exitCode: 1, message: expect.stringMatching(refusal) });
  });

  it('a graph under the caps loads and scores as before (100 Identity nodes after the logits)', { timeout: 60_000 }, async () => {
    const model = writeIdentityChainModel(path.join(root, 'identity-100'), 100);
    const outcomes = await runHostile([
      { op: 'cli', args: [model, ...scoreArgs] },
      { op: 'cli', args: ['inspect', model, '--json'] },
    ]);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ exitCode: 0 });
  });
});
