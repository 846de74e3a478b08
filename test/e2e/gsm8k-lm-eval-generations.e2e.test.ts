/**
 * gsm8k's generated text against real lm-eval: `evaluate()` under `--lm-eval-version 0.4.13` on stories260K (from
 * ../shared; skipped visibly without it) and the committed GSM8K fixture, held to what lm-eval 0.4.13's own
 * HFLM.generate_until, filters and metric gave on the same weights and documents
 * (test/fixtures/lm-eval/0.4.13/stories260K-gsm8k-generations.json, scripts/lm_eval/record_gsm8k_generations.py):
 * the contexts, the raw responses text for text, each filter's answers and exact_match, and the aggregates.
 * Every response is 256 generated tokens (stories260K reaches no stop), 2-shot contexts are left-truncated to
 * 256 tokens, and greedy decoding passes close calls: the smallest top-2 logit gap transformers measured on
 * lm-eval's path is 1.2e-4 (the recording's `min_top2_logit_gap`), which ONNX Runtime and torch still decide alike.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate, type EvaluateResult } from '../../src/index.js';
import { hasShared, repoRoot, sharedPaths } from '../support/shared-data.js';

const DATA_DIR = path.join(repoRoot, 'test/fixtures/tasks/gsm8k/hub');
const FILTERS = ['strict-match', 'flexible-extract'] as const;

interface RecordedDocument {
  readonly doc_id: number;
  readonly context: string;
  readonly resps: string;
  readonly filters: Readonly<Record<(typeof FILTERS)[number], { readonly filtered_resps: string; readonly exact_match: number }>>;
}
interface RecordedRun {
  readonly metrics: Readonly<Record<string, number>>;
  readonly documents: readonly RecordedDocument[];
}
const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lm-eval/0.4.13/stories260K-gsm8k-generations.json'), 'utf8')) as {
  readonly lm_eval_version: string;
  readonly runs: Readonly<Record<string, RecordedRun>>;
};

describe.skipIf(!hasShared)("gsm8k's generations on stories260K equal real lm-eval 0.4.13's", () => {
  for (const [shots, lmEval] of Object.entries(recorded.runs)) {
    describe(`${shots}-shot`, () => {
      let result: EvaluateResult;
      beforeAll(async () => {
        result = await evaluate({
          model: sharedPaths.stories,
          suite: 'gsm8k',
          dataDir: DATA_DIR,
          lmEvalVersion: '0.4.13',
          numFewshot: Number(shots),
          cacheDir: false,
          logSamples: true,
        });
      }, 120_000);

      const samplesOf = (filter: string): ReturnType<NonNullable<EvaluateResult['samples']>['get']> & object =>
        (result.samples?.get('gsm8k') ?? []).filter((sample) => sample.filter === filter);

      it('builds the same contexts and generates the same text for every document', () => {
        const strict = samplesOf('strict-match');
        expect(strict.map((sample) => sample.doc_id)).toEqual(lmEval.documents.map((doc) => doc.doc_id));
        expect(strict.map((sample) => sample.arguments[0]?.[0])).toEqual(lmEval.documents.map((doc) => doc.context));
        expect(strict.map((sample) => sample.resps[0]?.[0])).toEqual(lmEval.documents.map((doc) => doc.resps));
      });

      it("gives each filter's answers and exact_match, and the aggregates, as lm-eval does", () => {
        for (const filter of FILTERS) {
          const samples = samplesOf(filter);
          expect(samples.map((sample) => sample.filtered_resps[0])).toEqual(lmEval.documents.map((doc) => doc.filters[filter].filtered_resps));
          expect(samples.map((sample) => sample['exact_match'])).toEqual(lmEval.documents.map((doc) => doc.filters[filter].exact_match));
        }
        const entry: Record<string, unknown> = { ...result.results.results.gsm8k };
        for (const [metric, value] of Object.entries(lmEval.metrics)) expect(entry[metric], metric).toBeCloseTo(value, 15);
      });
    });
  }

  it('was recorded with lm-eval 0.4.13', () => {
    expect(recorded.lm_eval_version).toBe('0.4.13');
  });
});
