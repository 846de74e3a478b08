/**
 * Tokenization overlapped with scoring (chunks at task boundaries) and the token cache a second run reads:
 * both give the same numbers as scoring everything at once, which matches the independent path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTokenCache } from '../../src/cache/cached-tokenize.js';
import type { LoglikelihoodRequest } from '../../src/eval/instance.js';
import { tokenizeAndScore } from '../../src/run/pipelined-scoring.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { buildModelInputs } from '../../src/eval/text-requests.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { expectReferenceLogliks } from '../support/expect-reference.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-pipelined-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const words = ['the cat sat on the mat', 'a dog ran up', 'she saw two red dogs', 'it was not good', 'they ran down'];
function requests(): LoglikelihoodRequest[] {
  const out: LoglikelihoodRequest[] = [];
  for (const [taskIndex, task] of ['task_a', 'task_b', 'task_c'].entries()) {
    for (let docId = 0; docId < 4; docId += 1) {
      const context = `${words[(docId + taskIndex) % words.length]} and`;
      ['yes', 'no', 'big'].forEach((choice, choiceIndex) => out.push({ taskName: task, docId, choiceIndex, context, continuation: ` ${choice}` }));
    }
  }
  return out;
}

describe('tokenization overlapped with scoring', () => {
  it('chunked at task boundaries, it reproduces one-shot scoring and the independent path', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'model'), { pastConvention: 'optimum' });
    const model = await loadModel({ model: modelPath });
    const all = requests();
    const describe = (index: number): string => `request ${index}`;
    try {
      const progress: number[] = [];
      const pipelined = await tokenizeAndScore(model, all, { chunkRequests: 10, onProgress: (p) => progress.push(p.requestsDone) }, describe);
      const inputs = buildModelInputs(model, all, describe);
      const whole = await scoreModelInputs(model, inputs, {}, describe);
      expect(pipelined.stats.requests).toBe(all.length);
      expect(progress.at(-1)).toBe(all.length);
      pipelined.results.forEach((result, index) => {
        expect(Math.abs(result.loglik - (whole.results[index]?.loglik ?? Number.NaN)), `request ${index}`).toBeLessThan(1e-5);
      });
      await expectReferenceLogliks(modelPath, inputs, pipelined.results);

      const cacheDir = path.join(workDir, 'cache');
      const first = openTokenCache(model, all, { cacheDir });
      expect(first.cached).toBeUndefined();
      first.store(pipelined.tokenized);
      expect(openTokenCache(model, all, { cacheDir }).cached).toEqual(pipelined.tokenized);
    } finally {
      model.dispose();
    }
  });
});
