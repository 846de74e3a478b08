/**
 * MLRB's wikitext perplexity through mlrb-eval's scoring path, against transformers running MLRB's procedure on
 * the same weights (scripts/model_metrics/record_perplexity_expectations.py → perplexity-expectations.json):
 * the committed tiny Llama always, the real stories260K when ../shared is there. Both data layouts (the release's
 * wiki.test.raw and the hub's parquet) must give the same text.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel, type LanguageModel } from '../../src/model/onnx-model.js';
import { measurePerplexity } from '../../src/model-metrics/perplexity.js';
import { readRawTextFile, readWikitextTest } from '../../src/model-metrics/wikitext-text.js';
import { rejectedMlrbError } from '../support/expect-mlrb-error.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'model-metrics');

interface Expected {
  readonly token_count: number;
  readonly first_tokens: number[];
  readonly bos_token_id: number;
  readonly windows: number;
  readonly scored_tokens: number;
  readonly window_nll: number[];
  readonly running_perplexity: number[];
  readonly perplexity: number;
  readonly mlrb_summary: Record<'avg' | 'median' | 'min' | 'max' | 'p90' | 'p95', number>;
}

const expectations = JSON.parse(readFileSync(path.join(fixtures, 'perplexity-expectations.json'), 'utf8')) as {
  window_tokens: number;
  text_characters: number;
  models: Record<string, Expected>;
};

// The brief's bar: within 1e-4 relative of transformers (float32 logits in both; ORT and torch differ in the last bits).
const RELATIVE = 1e-4;
const relativeError = (actual: number, expected: number): number => Math.abs(actual - expected) / Math.abs(expected);

describe('WikiText-2 raw layouts', () => {
  it('the release file and the hub parquet give the same joined text', async () => {
    const release = await readWikitextTest(path.join(fixtures, 'wikitext-2-raw'));
    const hub = await readWikitextTest(path.join(fixtures, 'wikitext-hub'));
    const textFile = await readRawTextFile(path.join(fixtures, 'wikitext-2-raw', 'wiki.test.raw'));
    expect(release.layout).toBe('release');
    expect(hub.layout).toBe('hub');
    expect(hub.text).toBe(release.text);
    expect(textFile.text).toBe(release.text);
    expect(release.text.length).toBe(expectations.text_characters);
  });

  it('names the folder and the accepted layouts when the data is missing', async () => {
    const error = await rejectedMlrbError(() => readWikitextTest(path.join(fixtures, 'tiny-llama')));
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toContain(path.join(fixtures, 'tiny-llama'));
    expect(error.message).toMatch(/wikitext-2-raw-v1\/test-00000-of-00001\.parquet/);
    const missing = await rejectedMlrbError(() => readRawTextFile(path.join(fixtures, 'no-such.raw')));
    expect(missing.code).toBe('BAD_DATA');
    expect(missing.message).toContain('no-such.raw');
  });
});

function checkAgainstReference(name: string, modelPath: () => string): void {
  const expected = expectations.models[name];
  let model: LanguageModel;
  beforeAll(async () => {
    model = await loadModel({ model: modelPath() });
  });
  afterAll(() => model?.dispose());

  it(`${name}: tokens, windows and every figure within ${RELATIVE} of transformers`, async () => {
    if (!expected) throw new Error(`no recorded expectations for ${name}`);
    const { text } = await readWikitextTest(path.join(fixtures, 'wikitext-hub'));
    const result = await measurePerplexity(model, text);
    expect(result.procedure.text_tokens).toBe(expected.token_count);
    expect(result.procedure.bos_token_id).toBe(expected.bos_token_id);
    expect(result.windows).toBe(expected.windows);
    expect(result.scored_tokens).toBe(expected.scored_tokens);
    expect(relativeError(result.perplexity, expected.perplexity)).toBeLessThan(RELATIVE);
    result.running_perplexity.forEach((value, index) => expect(relativeError(value, expected.running_perplexity[index] as number)).toBeLessThan(RELATIVE));
    for (const key of Object.keys(expected.mlrb_summary) as (keyof Expected['mlrb_summary'])[]) {
      expect(relativeError(result.mlrb[key], expected.mlrb_summary[key]), key).toBeLessThan(RELATIVE);
    }
  });
}

describe('MLRB perplexity: committed tiny Llama', () => {
  checkAgainstReference('tiny-llama', () => path.join(fixtures, 'tiny-llama'));
});

describe('MLRB perplexity: refusals', () => {
  it('refuses a model whose max length would cut the 256-token window', async () => {
    const short = await loadModel({ model: path.join(fixtures, 'tiny-llama'), maxLength: 200 });
    try {
      const text = (await readRawTextFile(path.join(fixtures, 'wikitext-2-raw', 'wiki.test.raw'))).text;
      const error = await rejectedMlrbError(() => measurePerplexity(short, text));
      expect(error.code).toBe('BAD_MODEL');
      expect(error.message).toMatch(/max length 200 is shorter than MLRB's perplexity window of 256 tokens/);
    } finally {
      short.dispose();
    }
  });
});

describe.skipIf(!hasShared)('MLRB perplexity: stories260K (../shared)', () => {
  checkAgainstReference('stories260K', () => sharedPaths.stories);
});
