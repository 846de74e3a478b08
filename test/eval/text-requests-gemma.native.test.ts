/**
 * lm-eval v0.4.4–v0.4.8's Gemma rule through the loading path: stories260K loaded with its own config.json
 * (model_type llama) and with a copy stating model_type gemma tokenizes requests as real HFLM v0.4.8 did for those
 * model_types on the same tokenizer (test/fixtures/lm-eval/encoding-rules/0.4.8.json, recorded by
 * scripts/lm_eval/record_encoding_rules.py), and the token cache never hands one's ids to the other.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tokenizeWithCache } from '../../src/cache/cached-tokenize.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { modelEncodingRules, tokenizeRequests } from '../../src/eval/text-requests.js';
import { hasShared, repoRoot, sharedPaths } from '../support/shared-data.js';

interface RecordedCase {
  readonly tokenizer: string;
  readonly model_type: string;
  readonly loglikelihood: readonly { context: string; continuation: string; context_ids: number[]; continuation_ids: number[] }[];
  readonly generate_until: readonly { context: string; ids: number[] }[];
}
const recording = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'lm-eval', 'encoding-rules', '0.4.8.json'), 'utf8')) as {
  cases: RecordedCase[];
};
const recorded = (modelType: string): RecordedCase => {
  const found = recording.cases.find((entry) => entry.tokenizer === 'stories260K' && entry.model_type === modelType);
  if (found === undefined) throw new Error(`no recording for ${modelType}`);
  return found;
};

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-gemma-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe.skipIf(!hasShared)('the Gemma rule of lm-eval v0.4.4–v0.4.8, from config.json to token ids', () => {
  it("a gemma model_type puts BOS before every context and prompt, as HFLM v0.4.8 did; llama's does not; the token cache keeps them apart", async () => {
    const storiesDir = path.dirname(sharedPaths.stories);
    const gemmaConfig = path.join(workDir, 'config.json');
    const config = JSON.parse(readFileSync(path.join(storiesDir, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(gemmaConfig, JSON.stringify({ ...config, model_type: 'gemma' }));
    const llama = await loadModel({ model: sharedPaths.stories });
    const gemma = await loadModel({ model: sharedPaths.stories, config: gemmaConfig });
    try {
      expect([llama.metadata.modelType, gemma.metadata.modelType]).toEqual(['llama', 'gemma']);
      const cacheDir = path.join(workDir, 'cache');
      for (const [model, modelType] of [
        [llama, 'llama'],
        [gemma, 'gemma'],
      ] as const) {
        const { loglikelihood, generate_until } = recorded(modelType);
        // The rules a run's generation route encodes prompts by (evaluate.ts): HFLM.tok_batch_encode's ids.
        const rules = modelEncodingRules(model, '0.4.4-0.4.8');
        expect(generate_until.map(({ context }) => rules.encodePrompt(context))).toEqual(generate_until.map(({ ids }) => ids));
        const expected = loglikelihood.map((request) => ({ contextTokens: request.context_ids, continuationTokens: request.continuation_ids }));
        expect(tokenizeRequests(model, loglikelihood)).toEqual(expected);
        // Same files, same requests: the Gemma run after the llama one must miss the cache, not read llama's ids.
        const cached = tokenizeWithCache(model, loglikelihood, { cacheDir });
        expect(cached.cacheHit).toBe(false);
        expect(cached.tokenized).toEqual(expected);
        expect(tokenizeWithCache(model, loglikelihood, { cacheDir })).toMatchObject({ cacheHit: true, tokenized: expected });
      }
    } finally {
      llama.dispose();
      gemma.dispose();
    }
  });
});
