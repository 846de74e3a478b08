/**
 * The encoder-decoder engine on the tiny T5 and Flan-T5 exports (every layout), held to what real lm-eval 0.4.13's
 * seq2seq backend and transformers did with the same weights (scripts/seq2seq/record_lm_eval.py), without ../shared:
 *   - lm-eval's request rules on edge cases (empty context, trailing whitespace, the prefix text in the data, a
 *     context longer than n_positions) and their loglikelihoods;
 *   - loglikelihood_rolling (lm-eval's windows through the encoder and decoder) and generate_until's strings;
 *   - greedy ids equal to transformers' generate(), prompts batched together, with and without an EOS id; seeded
 *     sampling reproducible whatever the batch, and its first token drawn from transformers' softmax(logits / T);
 *   - the model the files describe: Flan-T5's own LM head, not the embedding lm-eval's tie_weights() would put there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRequest, encodingRulesFor } from '../../src/eval/request-encoding.js';
import { modelInputFor } from '../../src/engine/model-input.js';
import { documentWindows } from '../../src/eval/rolling-windows.js';
import { generateUntil } from '../../src/eval/generate-until/hflm-generate.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { scoreRequests } from '../../src/eval/text-requests.js';
import { createTextGenerator } from '../../src/generate/text-generator.js';
import { loadModel, type LanguageModel } from '../../src/model/onnx-model.js';
import { chiSquare, softmax } from '../support/chi-square.js';
import { readSeq2SeqExpectation, SEQ2SEQ_EXPORTS, seq2seqFolder, type RecordedEdges, type RecordedGenerations } from '../support/seq2seq-fixtures.js';

describe.each(SEQ2SEQ_EXPORTS)('%s (%s export)', (name, layout) => {
  const edges = readSeq2SeqExpectation<RecordedEdges>(`${name}-edges.json`);
  const generations = readSeq2SeqExpectation<RecordedGenerations>(`${name}-generate.json`);
  let model: LanguageModel;
  beforeAll(async () => {
    model = await loadModel({ model: seq2seqFolder(name, layout), onLog: () => {} });
  });
  afterAll(() => model?.dispose());

  it('encodes lm-eval’s edge cases as its seq2seq backend does', () => {
    expect(model.prefixTokenId()).toBe(edges.prefix_token_id);
    expect(model.maxLength).toBe(edges.max_length);
    const rules = encodingRulesFor('0.4.13', model.requireTokenizer(), () => model.prefixTokenId(), 'seq2seq');
    for (const { context, continuation, context_ids, continuation_ids } of edges.loglikelihood) {
      expect(encodeRequest({ context, continuation }, rules), JSON.stringify([context, continuation])).toEqual({
        contextTokens: context_ids,
        continuationTokens: continuation_ids,
      });
    }
  });

  it('scores them within 1e-4, the long context cut to its last n_positions tokens', async () => {
    const requests = edges.loglikelihood.map(({ context, continuation }, choiceIndex) => ({ taskName: 'edges', docId: 0, choiceIndex, context, continuation }));
    const { results } = await scoreRequests(model, requests, { lmEvalVersion: '0.4.13' });
    results.forEach((result, index) => {
      const recorded = edges.loglikelihood[index]!;
      expect(Math.abs(result.loglik - recorded.loglik), recorded.context.slice(0, 40)).toBeLessThan(1e-4);
      expect(result.isGreedy).toBe(recorded.is_greedy);
    });
    expect(edges.loglikelihood.some((recorded) => recorded.context_ids.length > model.maxLength)).toBe(true);
  });

  it('scores loglikelihood_rolling texts as lm-eval does (window context to the encoder, tokens to the decoder)', async () => {
    const rules = encodingRulesFor('0.4.13', model.requireTokenizer(), () => model.prefixTokenId(), 'seq2seq');
    for (const { text, loglik } of edges.rolling) {
      const windows = documentWindows(text, rules, model.maxLength);
      const inputs = windows.map((window) => modelInputFor(window, model.maxLength, () => text, 'seq2seq'));
      const { results } = await scoreModelInputs(model, inputs);
      const total = results.reduce((sum, result) => sum + result.loglik, 0);
      expect(Math.abs(total - loglik), text.slice(0, 40)).toBeLessThan(1e-4 * Math.max(1, windows.length));
    }
    expect(edges.rolling.some(({ text }) => documentWindows(text, rules, model.maxLength).length > 1)).toBe(true);
  });

  it('gives generate_until’s strings, up to context length + max_gen_toks − 1 new tokens', async () => {
    const tokenizer = model.requireTokenizer();
    const generator = createTextGenerator(model, { batchSize: 2 });
    for (const { kwargs, contexts, responses } of edges.generate_until) {
      const requests = contexts.map((context, docId) => ({
        taskName: 'edges',
        docId,
        context,
        generationKwargs: { until: kwargs.until, doSample: kwargs.do_sample, temperature: 0, maxGenToks: kwargs.max_gen_toks },
      }));
      const answers = await generateUntil(requests, generator, {
        encode: (text) => tokenizer.encodeWithSpecialTokens(text),
        eosText: tokenizer.tokenText(1),
        maxLength: model.maxLength,
        backend: 'seq2seq',
        decode: (ids) => tokenizer.decode(ids),
      });
      expect(answers).toEqual(responses);
    }
  });

  it('generates transformers’ greedy ids, prompts batched together (the engine’s ids, not decoded text)', async () => {
    expect(generations.minTopGap).toBeGreaterThan(1e-3);
    const generator = createTextGenerator(model, { batchSize: 3, stepsPerCall: 5 });
    const plain = await generator.generate(generations.prompts, { maxNewTokens: generations.maxNewTokens, eosTokenIds: [] });
    expect(plain.map((generation) => [...generation.tokenIds])).toEqual(generations.greedy);
    const withEos = await generator.generate(generations.prompts, { maxNewTokens: generations.maxNewTokens, eosTokenIds: [generations.eosTokenId] });
    expect(withEos.map((generation) => [...generation.tokenIds])).toEqual(generations.eosGreedy);
    expect(withEos[0]?.finishReason).toBe('eos');
  });
});

describe('the model the files describe', () => {
  it('Flan-T5 keeps its own LM head: lm-eval with its tie_weights() call scores another model', async () => {
    const edges = readSeq2SeqExpectation<RecordedEdges>('flan-t5-edges.json');
    const model = await loadModel({ model: seq2seqFolder('flan-t5', 'past'), onLog: () => {} });
    try {
      const [context, continuation] = edges.untied_head.request;
      const { results } = await scoreRequests(model, [{ taskName: 'tie', docId: 0, choiceIndex: 0, context, continuation }], { lmEvalVersion: '0.4.13' });
      const ours = results[0]!.loglik;
      expect(Math.abs(ours - edges.loglikelihood[0]!.loglik)).toBeLessThan(1e-4);
      expect(Math.abs(ours - edges.untied_head.loglik_with_tie_weights)).toBeGreaterThan(0.5);
    } finally {
      model.dispose();
    }
  });
});

describe.each(['past', 'nopast'] as const)('seeded sampling, flan-t5 (%s export)', (layout) => {
  const generations = readSeq2SeqExpectation<RecordedGenerations>('flan-t5-generate.json');
  const settings = { maxNewTokens: 10, eosTokenIds: [], sampling: { temperature: 1.5, seed: 99 } };
  const idsOf = (runs: { tokenIds: Int32Array }[]): number[][] => runs.map((run) => [...run.tokenIds]);
  let model: LanguageModel;
  beforeAll(async () => {
    model = await loadModel({ model: seq2seqFolder('flan-t5', layout), onLog: () => {} });
  });
  afterAll(() => model?.dispose());

  it('gives the same ids for the same seed whatever the batch, other ids for another seed, greedy ones with top-k 1', async () => {
    const all = await createTextGenerator(model, { batchSize: 4 }).generate(generations.prompts, settings);
    const alone = await createTextGenerator(model, { batchSize: 1 }).generate(generations.prompts, settings);
    const other = await createTextGenerator(model).generate(generations.prompts, { ...settings, sampling: { temperature: 1.5, seed: 100 } });
    expect(idsOf(alone)).toEqual(idsOf(all));
    expect(idsOf(other)).not.toEqual(idsOf(all));
    expect(idsOf(all)).not.toEqual(generations.greedy.map((run) => run.slice(0, 10)));
    const topOne = await createTextGenerator(model).generate(generations.prompts, {
      maxNewTokens: generations.maxNewTokens,
      eosTokenIds: [],
      sampling: { temperature: 0.7, topK: 1, seed: 5 },
    });
    expect(idsOf(topOne)).toEqual(generations.greedy);
  });

  it('draws the first token from softmax(logits / T) of transformers’ first decoder position', async () => {
    const samples = 3000;
    const temperature = 1.3;
    const prompts = Array.from({ length: samples }, () => generations.prompts[0]!);
    const runs = await createTextGenerator(model, { batchSize: 500 }).generate(prompts, {
      maxNewTokens: 1,
      eosTokenIds: [],
      sampling: { temperature, seed: 1234 },
    });
    const counts = new Map<number, number>();
    for (const run of runs) counts.set(run.tokenIds[0]!, (counts.get(run.tokenIds[0]!) ?? 0) + 1);
    const { statistic, critical } = chiSquare(counts, softmax(generations.firstLogits, temperature), samples);
    expect(statistic).toBeLessThan(critical);
  });
});
