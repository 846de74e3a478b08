/**
 * The wikitext task's pieces against real lm-eval 0.4.13 on stories260K (recorded by
 * scripts/lm_eval/record_wikitext_expectations.py): the detokenized targets and word/byte weights, the rolling
 * windows (v0.4.13 lets the Llama tokenizer add BOS, so each document's first predicted token is BOS after the
 * prefix BOS), each document's log-likelihood summed over windows scored through the ordinary scoring path, and
 * the three metrics.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { encodingRulesFor } from '../../../src/eval/request-encoding.js';
import { documentWindows } from '../../../src/eval/rolling-windows.js';
import { scoreModelInputs } from '../../../src/engine/score-requests.js';
import { modelInputsFromTokens } from '../../../src/eval/text-requests.js';
import { loadModel, type LanguageModel } from '../../../src/model/onnx-model.js';
import { readParquetRows } from '../../../src/tasks/parquet-rows.js';
import { wikitextDetokenize, wikitextWeights } from '../../../src/tasks/wikitext/detokenize.js';
import { bitsPerByte, weightedPerplexity, type WeightedLoglik } from '../../../src/tasks/wikitext/perplexity-metrics.js';
import { hasShared, sharedPaths } from '../../support/shared-data.js';

const EXPECTATIONS = 'test/fixtures/lm-eval/0.4.13/stories260K-wikitext.json';
const FIXTURE_ROOT = 'test/fixtures/tasks/wikitext';
const FIXTURE = `${FIXTURE_ROOT}/wikitext-2-raw-v1/test-00000-of-00001.parquet`;
const RELATIVE_TOLERANCE = 1e-4;

interface Recorded {
  readonly max_length: number;
  readonly prefix_token_id: number;
  readonly metrics: Readonly<Record<'word_perplexity' | 'byte_perplexity' | 'bits_per_byte', number>>;
  readonly documents: readonly {
    readonly target: string;
    readonly loglikelihood: number;
    readonly words: number;
    readonly bytes: number;
    readonly windows: readonly { readonly context: number[]; readonly continuation: number[] }[];
  }[];
}

const recorded = JSON.parse(readFileSync(EXPECTATIONS, 'utf8')) as Recorded;

function expectRelativelyClose(actual: number, expected: number): void {
  expect(Math.abs(actual - expected) / Math.abs(expected)).toBeLessThan(RELATIVE_TOLERANCE);
}

function metricsOf(logliks: readonly number[]): Recorded['metrics'] {
  const weighted = (weight: 'words' | 'bytes'): WeightedLoglik[] =>
    logliks.map((loglik, index) => ({ loglik, weight: recorded.documents[index]?.[weight] ?? Number.NaN }));
  return {
    word_perplexity: weightedPerplexity(weighted('words')),
    byte_perplexity: weightedPerplexity(weighted('bytes')),
    bits_per_byte: bitsPerByte(weighted('bytes')),
  };
}

describe('wikitext against real lm-eval 0.4.13', () => {
  let pages: string[] = [];
  beforeAll(async () => {
    const rows = await readParquetRows({ file: FIXTURE, root: FIXTURE_ROOT, what: 'wikitext fixture', shape: { page: z.string() } });
    pages = rows.map(({ row }) => row.page);
  });

  it('detokenizes and weighs every fixture page as lm-eval did', () => {
    expect(pages.map(wikitextDetokenize)).toEqual(recorded.documents.map((doc) => doc.target));
    expect(pages.map(wikitextWeights)).toEqual(recorded.documents.map(({ words, bytes }) => ({ words, bytes })));
  });

  it("aggregates lm-eval's per-document log-likelihoods into its three metrics", () => {
    const metrics = metricsOf(recorded.documents.map((doc) => doc.loglikelihood));
    for (const name of ['word_perplexity', 'byte_perplexity', 'bits_per_byte'] as const) {
      expect(metrics[name]).toBeCloseTo(recorded.metrics[name], 9);
    }
  });

  describe.skipIf(!hasShared)('stories260K ONNX', () => {
    let model: LanguageModel;
    // biome-ignore lint/suspicious/noDuplicateTestHooks: this hook is the nested describe.skipIf's, which biome does not read as a describe
    beforeAll(async () => {
      model = await loadModel({ model: sharedPaths.stories, maxLength: recorded.max_length, threads: 1 });
    });
    afterAll(() => model?.dispose());

    it('cuts every document into the windows lm-eval scored, and scores them to its log-likelihoods and metrics', async () => {
      expect(model.prefixTokenId()).toBe(recorded.prefix_token_id);
      const rules = encodingRulesFor('0.4.13', model.requireTokenizer(), () => model.prefixTokenId());
      const windowsByDoc = recorded.documents.map((doc) => documentWindows(doc.target, rules, model.maxLength));
      windowsByDoc.forEach((windows, docIndex) => {
        const expected = recorded.documents[docIndex]?.windows ?? [];
        expect(windows).toEqual(expected.map((w) => ({ contextTokens: w.context, continuationTokens: w.continuation })));
      });

      const { results } = await scoreModelInputs(model, modelInputsFromTokens(model, windowsByDoc.flat()));
      let next = 0;
      const logliks = windowsByDoc.map((windows) => windows.reduce((sum) => sum + (results[next++]?.loglik ?? Number.NaN), 0));
      logliks.forEach((loglik, docIndex) => expectRelativelyClose(loglik, recorded.documents[docIndex]?.loglikelihood ?? Number.NaN));
      const metrics = metricsOf(logliks);
      for (const name of ['word_perplexity', 'byte_perplexity', 'bits_per_byte'] as const) expectRelativelyClose(metrics[name], recorded.metrics[name]);
    });
  });
});
