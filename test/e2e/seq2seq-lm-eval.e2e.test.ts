/**
 * The encoder-decoder path against real lm-eval 0.4.13's seq2seq HF backend on the same weights
 * (scripts/seq2seq/record_lm_eval.py ran its CLI on the tiny T5 and Flan-T5 checkpoints: MMLU, 57 subjects × 2
 * questions, and 5 BLiMP paradigms × 10 pairs), for each of optimum's three export layouts: the same context and
 * continuation ids, every loglikelihood within 1e-4 (ONNX Runtime vs torch), the same greedy flags and the same
 * accuracies. Needs ../shared for the data; skipped visibly without it.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../src/run/evaluate.js';
import type { LoglikelihoodRequest } from '../../src/eval/instance.js';
import { scoreRequests, tokenizeRequests } from '../../src/eval/text-requests.js';
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import { loadModel, type LanguageModel } from '../../src/model/onnx-model.js';
import { loadSuite } from '../../src/tasks/registry.js';
import { isMultipleChoice } from '../../src/tasks/types.js';
import { idsSha256, requestKey as key, sha256, type RecordedRequest } from '../support/lm-eval-requests.js';
import { readSeq2SeqExpectation, readSeq2SeqRequests, SEQ2SEQ_EXPORTS, SEQ2SEQ_MODELS, seq2seqFolder } from '../support/seq2seq-fixtures.js';
import { hasShared, sharedDir, sharedPaths } from '../support/shared-data.js';

const MMLU_LIMIT = 2;
const BLIMP_PARADIGMS = ['adjunct_island', 'anaphor_gender_agreement', 'causative', 'determiner_noun_agreement_1', 'wh_questions_object_gap'];
const BLIMP_LIMIT = 10;

interface RecordedResults {
  readonly results: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

async function lmEvalRequests(): Promise<LoglikelihoodRequest[]> {
  const mmlu = await loadSuite('mmlu', { dataDir: sharedPaths.mmlu, limit: MMLU_LIMIT });
  const blimp = await loadSuite('blimp', { dataDir: sharedPaths.blimp, limit: BLIMP_LIMIT, paradigms: BLIMP_PARADIGMS });
  return [...mmlu.tasks, ...blimp.tasks].filter(isMultipleChoice).flatMap((task) => buildTaskRequests(task));
}

describe.skipIf(!hasShared).each(SEQ2SEQ_EXPORTS)('%s (%s export) against lm-eval 0.4.13’s seq2seq backend', (name, layout) => {
  const recorded = readSeq2SeqRequests(name);
  let model: LanguageModel;
  let requests: LoglikelihoodRequest[];

  beforeAll(async () => {
    model = await loadModel({ model: seq2seqFolder(name, layout) });
    requests = await lmEvalRequests();
  });
  afterAll(() => model?.dispose());

  const recordedFor = (request: LoglikelihoodRequest): RecordedRequest => {
    const row = recorded.get(key(request.taskName, request.docId, request.choiceIndex));
    if (row === undefined) throw new Error(`lm-eval made no request ${key(request.taskName, request.docId, request.choiceIndex)}`);
    return row;
  };

  it('loads as an encoder-decoder with lm-eval’s max length (n_positions)', () => {
    expect(model.backend).toBe('seq2seq');
    expect(model.maxLength).toBe(48);
    expect(model.decodesWithKvCache).toBe(layout !== 'nopast');
  });

  it('builds the same context (</s> appended) and continuation ids', () => {
    expect(requests).toHaveLength(recorded.size);
    const tokenized = tokenizeRequests(model, requests, '0.4.13');
    tokenized.forEach(({ contextTokens, continuationTokens }, index) => {
      const row = recordedFor(requests[index] as LoglikelihoodRequest);
      const where = key(row.task, row.doc, row.choice);
      expect(sha256((requests[index] as LoglikelihoodRequest).context), where).toBe(row.context_sha256);
      expect({ length: contextTokens.length, head: contextTokens.slice(0, 3), continuation: continuationTokens }, where).toEqual({
        length: row.context_length,
        head: row.context_head,
        continuation: row.continuation_ids,
      });
      expect(idsSha256(contextTokens), where).toBe(row.context_ids_sha256);
    });
  });

  it('scores every request within 1e-4 of lm-eval, with the same greedy flags', async () => {
    const { results, stats } = await scoreRequests(model, requests, { lmEvalVersion: '0.4.13' });
    let maxDiff = 0;
    results.forEach((result, index) => {
      const row = recordedFor(requests[index] as LoglikelihoodRequest);
      maxDiff = Math.max(maxDiff, Math.abs(result.loglik - row.loglik));
      expect(result.isGreedy, key(row.task, row.doc, row.choice)).toBe(row.is_greedy);
    });
    expect(maxDiff).toBeLessThan(1e-4);
    // The four MMLU choices of a question share one encoder pass: fewer encoder rows than requests.
    expect(stats.rows).toBeLessThan(stats.requests);
  });
});

describe.skipIf(!hasShared).each(SEQ2SEQ_MODELS)('%s: lm-eval 0.4.13’s accuracies from mlrb-eval’s evaluate()', (name) => {
  it.each([
    ['mmlu', `${name}-mmlu-results.json`, { limit: MMLU_LIMIT }],
    [BLIMP_PARADIGMS.map((paradigm) => `blimp_${paradigm}`).join(','), `${name}-blimp-results.json`, { limit: BLIMP_LIMIT }],
  ])('%s', async (tasks, file, options) => {
    const { results } = await evaluate({
      model: seq2seqFolder(name, 'merged'),
      suite: tasks,
      dataDir: path.join(sharedDir, 'data'),
      ...options,
      lmEvalVersion: '0.4.13',
      cacheDir: false,
    });
    const expected = readSeq2SeqExpectation<RecordedResults>(file).results;
    expect(Object.keys(results.results)).toEqual(Object.keys(expected));
    for (const [task, entry] of Object.entries(expected)) {
      const ours = results.results[task];
      expect(ours?.sample_len, task).toBe(entry.sample_len);
      expect(ours?.['acc,none'], task).toBeCloseTo(entry['acc,none'] as number, 12);
      expect(ours?.['acc_stderr,none'], task).toBeCloseTo(entry['acc_stderr,none'] as number, 12);
    }
  });
});
