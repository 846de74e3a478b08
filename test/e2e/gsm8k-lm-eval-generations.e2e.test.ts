/**
 * gsm8k's generated text against real lm-eval: `evaluate()` under `--lm-eval-version 0.4.13` on stories260K (from
 * ../shared; skipped visibly without it) and the committed GSM8K fixture, held to what lm-eval 0.4.13's own
 * HFLM.generate_until, filters and metric gave on the same weights and documents
 * (test/fixtures/lm-eval/0.4.13/stories260K-gsm8k-generations.json, scripts/lm_eval/record_gsm8k_generations.py):
 * the contexts, the raw responses text for text, each filter's answers and exact_match, and the aggregates.
 * Every response is 256 generated tokens (stories260K reaches no stop), 2-shot contexts are left-truncated to
 * 256 tokens, and greedy decoding passes close calls: the smallest top-2 logit gap transformers measured on
 * lm-eval's path is 1.2e-4 (the recording's `min_top2_logit_gap`), which ONNX Runtime and torch still decide alike.
 *
 * And per release, at 0 shots, where the whole context reaches the model: the context ids lm-eval 0.4.13 and
 * v0.4.8 (run from its source) fed generate() and the texts they generated
 * (test/fixtures/lm-eval/{0.4.13,0.4.8}/stories260K-gsm8k-0shot-ids.json,
 * scripts/lm_eval/record_gsm8k_context_ids.py), against ours under the matching --lm-eval-version: 0.4.8 puts no
 * BOS before stories260K's contexts, 0.4.13 does, and the first generated word differs with it. The GPT-2
 * tokenizer's context ids (lm-eval's tok_batch_encode) carry no BOS in either release.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate, encodingRulesFor, type EvaluateResult } from '../../src/index.js';
import { contextTokens, planGeneration } from '../../src/eval/generate-until/hflm-generate.js';
import type { LmEvalVersion } from '../../src/eval/lm-eval-version.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadTokenizer } from '../../src/model/tokenizer.js';
import { GSM8K_GENERATION } from '../../src/tasks/gsm8k/spec.js';
import { hasShared, repoRoot, sharedDir, sharedPaths } from '../support/shared-data.js';

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

interface RecordedIds {
  readonly lm_eval_version: string;
  readonly max_length: number;
  readonly max_gen_toks: number;
  readonly documents: readonly { doc_id: number; context: string; context_ids: number[]; resps: string; gpt2_context_ids: number[] }[];
}
const RELEASES: readonly { release: string; version: LmEvalVersion }[] = [
  { release: '0.4.8', version: '0.4.4-0.4.8' },
  { release: '0.4.13', version: '0.4.13' },
];

describe.skipIf(!hasShared)("gsm8k 0-shot: the context ids and texts of each lm-eval release, on stories260K's and GPT-2's tokenizers", () => {
  const readIds = (release: string): RecordedIds =>
    JSON.parse(readFileSync(path.join(repoRoot, `test/fixtures/lm-eval/${release}/stories260K-gsm8k-0shot-ids.json`), 'utf8')) as RecordedIds;

  for (const { release, version } of RELEASES) {
    describe(`--lm-eval-version ${version} against lm-eval ${release}`, () => {
      const lmEval = readIds(release);

      it('feeds generate() the same context ids for every document', async () => {
        expect(lmEval.lm_eval_version).toBe(release);
        const model = await loadModel({ model: sharedPaths.stories });
        try {
          expect(model.maxLength).toBe(lmEval.max_length);
          const options = {
            encode: encodingRulesFor(version, model.requireTokenizer(), () => model.prefixTokenId()).encode,
            eosText: '</s>',
            maxLength: model.maxLength,
          };
          const plan = planGeneration(GSM8K_GENERATION, options);
          expect(plan.maxGenToks).toBe(lmEval.max_gen_toks);
          for (const doc of lmEval.documents) expect(contextTokens(doc.context, plan, options), `doc ${doc.doc_id}`).toEqual(doc.context_ids);
        } finally {
          model.dispose();
        }
      });

      it("builds GPT-2's context ids as lm-eval's tok_batch_encode does (no BOS)", () => {
        const tokenizer = loadTokenizer(path.join(sharedDir, 'models/tiny-random-gpt2-past/tokenizer.json'));
        const eos = tokenizer.encodeWithSpecialTokens('<|endoftext|>')[0] as number;
        const options = { encode: encodingRulesFor(version, tokenizer, () => eos).encode, eosText: '<|endoftext|>', maxLength: 1024 };
        const plan = planGeneration(GSM8K_GENERATION, options);
        for (const doc of lmEval.documents) expect(contextTokens(doc.context, plan, options), `doc ${doc.doc_id}`).toEqual(doc.gpt2_context_ids);
      });

      it('generates the same text for every document', async () => {
        const result = await evaluate({
          model: sharedPaths.stories,
          suite: 'gsm8k',
          dataDir: DATA_DIR,
          lmEvalVersion: version,
          numFewshot: 0,
          cacheDir: false,
          logSamples: true,
        });
        const samples = (result.samples?.get('gsm8k') ?? []).filter((sample) => sample.filter === 'strict-match');
        expect(samples.map((sample) => sample.arguments[0]?.[0])).toEqual(lmEval.documents.map((doc) => doc.context));
        expect(samples.map((sample) => sample.resps[0]?.[0])).toEqual(lmEval.documents.map((doc) => doc.resps));
      }, 120_000);
    });
  }

  it('the two releases differ here: 0.4.13 puts BOS before the context and generates other text', () => {
    const [old, current] = [readIds('0.4.8'), readIds('0.4.13')];
    const bos = loadTokenizer(path.join(sharedDir, 'models/stories260K/tokenizer.json')).encodeWithSpecialTokens('<s>')[0];
    current.documents.forEach((doc, index) => expect(doc.context_ids).toEqual([bos, ...(old.documents[index]?.context_ids ?? [])]));
    expect(current.documents.map((doc) => doc.resps)).not.toEqual(old.documents.map((doc) => doc.resps));
  });
});
