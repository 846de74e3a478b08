/**
 * Rows that are prefixes of longer rows are folded into them: a request then scores positions before the
 * end of the row it reads. Exact against the independent path with sliced and full logits, with a reused
 * few-shot prefix, and under a fixed batch size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import type { ModelInput } from '../../src/engine/model-input.js';
import { expectReferenceLogliks } from '../support/expect-reference.js';
import { seededRandom } from '../support/random-requests.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-prefix-rows-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Questions whose answers have 1 to 3 tokens: the one-token answers' row is a prefix of the others'. */
function nestedInputs(questions: number, sharedPrefix: readonly number[], seed: number): ModelInput[] {
  const random = seededRandom(seed);
  const id = (): number => 4 + Math.floor(random() * 60);
  const inputs: ModelInput[] = [];
  for (let question = 0; question < questions; question += 1) {
    const context = [...sharedPrefix, ...Array.from({ length: 3 + Math.floor(random() * 10) }, id)];
    for (let choice = 0; choice < 4; choice += 1) {
      const answer = Array.from({ length: 1 + (choice % 3) }, id);
      const all = [...context, ...answer];
      inputs.push({ inputTokens: all.slice(0, -1), continuationTokens: answer });
    }
  }
  return inputs;
}

describe('prefix rows folded into longer rows', () => {
  it('sliced and full logits, auto and fixed batches: exact, and fewer rows', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'plain'));
    const inputs = nestedInputs(12, [], 3);
    for (const sliceLmHead of [true, false]) {
      const model = await loadModel({ model: modelPath, sliceLmHead });
      try {
        const folded = await scoreModelInputs(model, inputs, { batchSize: 3 });
        const unfolded = await scoreModelInputs(model, inputs, { batchSize: 3, mergePrefixRows: false });
        expect(folded.stats.rows).toBeLessThan(unfolded.stats.rows);
        await expectReferenceLogliks(modelPath, inputs, folded.results);
        await expectReferenceLogliks(modelPath, inputs, (await scoreModelInputs(model, inputs)).results);
      } finally {
        model.dispose();
      }
    }
  });

  it('with a reused few-shot prefix', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'past'), { pastConvention: 'optimum', maxPositions: 128 });
    const prefix = Array.from({ length: 40 }, (_, index) => 4 + ((index * 7) % 60));
    const inputs = nestedInputs(10, prefix, 9);
    const model = await loadModel({ model: modelPath });
    try {
      const { results, stats } = await scoreModelInputs(model, inputs);
      expect(stats.prefixGroups).toBe(1);
      await expectReferenceLogliks(modelPath, inputs, results);
    } finally {
      model.dispose();
    }
  });

  it('BAD CALL – a request end outside its row is refused with BAD_DATA', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'bad'));
    const model = await loadModel({ model: modelPath });
    try {
      const batch = {
        tokens: Int32Array.from([5, 6, 7]),
        rowOffsets: Int32Array.from([0, 3]),
        requestRows: Int32Array.from([0]),
        targets: Int32Array.from([8]),
        targetOffsets: Int32Array.from([0, 1]),
        requestEnds: Int32Array.from([4]),
      };
      await expect(model.scoreBatch(batch)).rejects.toMatchObject({
        code: 'BAD_DATA',
        message: expect.stringMatching(/ends at position 4, outside its row of 3/),
      });
    } finally {
      model.dispose();
    }
  });
});
