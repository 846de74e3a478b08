/**
 * `--lm-eval-version 0.4.13` against real lm-eval 0.4.13 (scripts/lm_eval/record_0413_expectations.py ran its CLI
 * and HF backend on stories260K: MMLU, 57 subjects × 3 questions, and 5 BLiMP paradigms × 20 pairs). Request by
 * request: the same prompt text (sha256), the same context and continuation token ids, loglikelihoods within 1e-4
 * (ONNX Runtime vs torch on the same weights) and the same accuracies. The default rules are checked against the
 * same run: lm-eval 0.4.13 only adds the BOS that stories260K's tokenizer puts first, so the v0.4.4–v0.4.8 ids
 * are its ids without that BOS. The edge cases (empty contexts, the BOS text in the data, GPT-2's tokenizer)
 * need only the tokenizers. Needs ../shared; skipped visibly without it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoglikelihoodRequest } from '../../src/eval/instance.js';
import type { LmEvalVersion } from '../../src/eval/lm-eval-version.js';
import { encodeRequest, encodingRulesFor } from '../../src/eval/request-encoding.js';
import { evaluate } from '../../src/run/evaluate.js';
import { scoreRequests, tokenizeRequests } from '../../src/eval/text-requests.js';
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import { loadModel, type LanguageModel } from '../../src/model/onnx-model.js';
import { loadTokenizer } from '../../src/model/tokenizer.js';
import { loadSuite } from '../../src/tasks/registry.js';
import { idsSha256, readRecordedRequests, requestKey as key, sha256, type RecordedRequest } from '../support/lm-eval-requests.js';
import { hasShared, repoRoot, sharedDir, sharedPaths } from '../support/shared-data.js';
import { isMultipleChoice } from '../../src/tasks/types.js';

const fixtures = path.join(repoRoot, 'test/fixtures/lm-eval/0.4.13');
const MMLU_LIMIT = 3;
const BLIMP_PARADIGMS = ['adjunct_island', 'anaphor_gender_agreement', 'causative', 'determiner_noun_agreement_1', 'wh_questions_object_gap'];
const BLIMP_LIMIT = 20;

interface RecordedResults {
  readonly results: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

const readJson = <T>(name: string): T => JSON.parse(readFileSync(path.join(fixtures, name), 'utf8')) as T;

describe.skipIf(!hasShared)('--lm-eval-version 0.4.13 matches real lm-eval 0.4.13 on stories260K', () => {
  const recorded = readRecordedRequests(path.join(fixtures, 'stories260K-requests.jsonl'));
  let model: LanguageModel;
  let requests: LoglikelihoodRequest[];

  beforeAll(async () => {
    model = await loadModel({ model: sharedPaths.stories });
    const mmlu = await loadSuite('mmlu', { dataDir: sharedPaths.mmlu, limit: MMLU_LIMIT });
    const blimp = await loadSuite('blimp', { dataDir: sharedPaths.blimp, limit: BLIMP_LIMIT, paradigms: BLIMP_PARADIGMS });
    requests = [...mmlu.tasks, ...blimp.tasks].filter(isMultipleChoice).flatMap((task) => buildTaskRequests(task));
  });
  afterAll(() => model?.dispose());

  const recordedFor = (request: LoglikelihoodRequest): RecordedRequest => {
    const row = recorded.get(key(request.taskName, request.docId, request.choiceIndex));
    if (row === undefined) throw new Error(`lm-eval made no request ${key(request.taskName, request.docId, request.choiceIndex)}`);
    return row;
  };

  it('makes the same requests from the same prompts', () => {
    expect(requests).toHaveLength(recorded.size);
    expect(recorded.size).toBe(57 * MMLU_LIMIT * 4 + BLIMP_PARADIGMS.length * BLIMP_LIMIT * 2);
    for (const request of requests)
      expect(sha256(request.context), key(request.taskName, request.docId, request.choiceIndex)).toBe(recordedFor(request).context_sha256);
  });

  it('builds the same token ids, BOS included', () => {
    const tokenized = tokenizeRequests(model, requests, '0.4.13');
    let withBos = 0;
    tokenized.forEach(({ contextTokens, continuationTokens }, index) => {
      const row = recordedFor(requests[index] as LoglikelihoodRequest);
      const where = key(row.task, row.doc, row.choice);
      expect({ length: contextTokens.length, head: contextTokens.slice(0, 3), continuation: continuationTokens }, where).toEqual({
        length: row.context_length,
        head: row.context_head,
        continuation: row.continuation_ids,
      });
      expect(idsSha256(contextTokens), where).toBe(row.context_ids_sha256);
      if (contextTokens[0] === model.prefixTokenId()) withBos += 1;
    });
    expect(withBos).toBe(requests.length);
  });

  it('keeps the v0.4.4–v0.4.8 ids by default: 0.4.13’s without the BOS the tokenizer added', () => {
    const tokenized = tokenizeRequests(model, requests);
    tokenized.forEach(({ contextTokens, continuationTokens }, index) => {
      const request = requests[index] as LoglikelihoodRequest;
      const row = recordedFor(request);
      const where = key(row.task, row.doc, row.choice);
      expect(continuationTokens, where).toEqual(row.continuation_ids);
      // An empty context (BLiMP) is the prefix token under both rules; otherwise 0.4.13 adds the BOS.
      const as0413 = request.context === '' ? contextTokens : [row.context_head[0] as number, ...contextTokens];
      expect(idsSha256(as0413), where).toBe(row.context_ids_sha256);
    });
  });

  it('scores every request within 1e-4 of lm-eval’s loglikelihood, with the same greedy flags', async () => {
    const { results } = await scoreRequests(model, requests, { lmEvalVersion: '0.4.13' });
    let maxDiff = 0;
    results.forEach((result, index) => {
      const row = recordedFor(requests[index] as LoglikelihoodRequest);
      maxDiff = Math.max(maxDiff, Math.abs(result.loglik - row.loglik));
      expect(result.isGreedy, key(row.task, row.doc, row.choice)).toBe(row.is_greedy);
    });
    expect(maxDiff).toBeLessThan(1e-4);
  });

  it.each([
    ['mmlu', 'stories260K-mmlu-results.json', { limit: MMLU_LIMIT }],
    [BLIMP_PARADIGMS.map((paradigm) => `blimp_${paradigm}`).join(','), 'stories260K-blimp-results.json', { limit: BLIMP_LIMIT }],
  ])('reports lm-eval 0.4.13’s accuracies for %s', async (tasks, file, options) => {
    const dataDir = path.join(sharedDir, 'data');
    const { results } = await evaluate({ model: sharedPaths.stories, suite: tasks, dataDir, ...options, lmEvalVersion: '0.4.13', cacheDir: false });
    const expected = readJson<RecordedResults>(file).results;
    expect(Object.keys(results.results)).toEqual(Object.keys(expected));
    for (const [name, entry] of Object.entries(expected)) {
      const ours = results.results[name];
      expect(ours?.sample_len, name).toBe(entry.sample_len);
      expect(ours?.['acc,none'], name).toBeCloseTo(entry['acc,none'] as number, 12);
      expect(ours?.['acc_stderr,none'], name).toBeCloseTo(entry['acc_stderr,none'] as number, 12);
    }
    expect(results.lm_eval_version).toBe('0.4.13');
    expect(results.mlrb.lm_eval_rules).toBe('0.4.13');
  });
});

describe.skipIf(!hasShared)('lm-eval 0.4.13’s edge cases, from its own HFLM request building', () => {
  interface EdgeCases {
    readonly prefix_token_id: number;
    readonly requests: readonly { context: string; continuation: string; context_ids: number[]; continuation_ids: number[] }[];
  }
  const edges = readJson<Record<string, EdgeCases>>('edge-requests.json');
  const tokenizers: Record<string, string> = {
    stories260K: path.join(sharedDir, 'models/stories260K/tokenizer.json'),
    'tiny-random-gpt2-past': path.join(sharedDir, 'models/tiny-random-gpt2-past/tokenizer.json'),
  };

  it.each(Object.keys(tokenizers))('%s: empty contexts, trailing whitespace, the BOS text in the data', (name) => {
    const tokenizer = loadTokenizer(tokenizers[name] as string);
    const cases = edges[name] as EdgeCases;
    const version: LmEvalVersion = '0.4.13';
    const rules = encodingRulesFor(version, tokenizer, () => cases.prefix_token_id);
    for (const { context, continuation, context_ids, continuation_ids } of cases.requests) {
      expect(encodeRequest({ context, continuation }, rules), JSON.stringify([context, continuation])).toEqual({
        contextTokens: context_ids,
        continuationTokens: continuation_ids,
      });
    }
  });
});
