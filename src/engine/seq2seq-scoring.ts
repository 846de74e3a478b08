/**
 * Scores model inputs on an encoder-decoder (lm-eval's seq2seq backend): each input is an encoder row (the context,
 * left-truncated to the model's length) and a continuation the decoder reads after decoder_start_token_id. Passes
 * are planned by seq2seq-batches.ts and run through the same job runner, options, progress and per-pass callback
 * (the score cache) as the causal path.
 */
import type { LanguageModel } from '../model/language-model.js';
import { runJobs } from './job-runner.js';
import { filePassResults, passProgressReporter } from './pass-results.js';
import { autoBudgets, concurrentPasses, spreadTokenCap } from './pass-budgets.js';
import { assertInVocabulary, type LoglikelihoodResult, type ModelInput } from './model-input.js';
import { packBatch } from './collator.js';
import { groupByEncoderInput, planSeq2SeqPasses, seq2seqFitsFor, type EncoderRow } from './seq2seq-batches.js';
import type { ScoreOptions, ScoreOutput } from './score-types.js';

export async function scoreSeq2SeqInputs(
  model: LanguageModel,
  inputs: readonly ModelInput[],
  options: ScoreOptions,
  describe: (index: number) => string,
): Promise<ScoreOutput> {
  assertInVocabulary(inputs, model.vocabSize, describe);
  const concurrency = concurrentPasses(options, model.parallelBatches);
  const started = performance.now();
  const groups = groupByEncoderInput(inputs);
  // The work without reuse: each distinct context once, each continuation once.
  const continuationTokens = inputs.reduce((sum, input) => sum + input.continuationTokens.length, 0);
  const encoderTokens = groups.reduce((sum, group) => sum + group.tokens.length, 0);
  const tokensTotal = encoderTokens + continuationTokens;
  const tokenCap = spreadTokenCap(tokensTotal, concurrency);
  const budgets = autoBudgets(model.provider, options, tokenCap);
  const fits = seq2seqFitsFor(
    options.batchSize ?? 'auto',
    { vocabSize: model.vocabSize ?? 50_000, hiddenSize: model.metadata.hiddenSize, attentionHeads: model.metadata.attentionHeads },
    budgets.memoryBytes / concurrency,
    budgets.tokensPerBatch,
    tokenCap,
  );
  const passes = planSeq2SeqPasses(inputs, groups, fits);
  const results = new Array<LoglikelihoodResult>(inputs.length);
  const totals = { requestsDone: 0, tokensDone: 0, paddedTokens: 0, logitRows: 0, encoderTokens: 0 };
  const reportProgress = passProgressReporter(options.onProgress, { requestsTotal: inputs.length, tokensTotal, startedMs: started });
  const encoded = new Set<readonly number[]>();
  // packBatch's rows need a scored tail; an encoder row's decoder rows are planned apart, so it is unused here.
  const pack = (rows: readonly EncoderRow[]) =>
    packBatch(
      rows.map((row) => ({ ...row, scoredTail: 0 })),
      inputs,
    );
  await runJobs(
    passes,
    pack,
    async (rows: EncoderRow[], packed) => {
      const scores = await model.scoreBatch(packed.batch);
      const requestIndices = filePassResults(scores, packed.requestIndices, results, options.onBatchScored);
      totals.requestsDone += requestIndices.length;
      // Progress counts a context once, however many passes its requests were split over (tokensTotal does too).
      const firstSeen = rows.filter((row) => !encoded.has(row.tokens));
      for (const row of firstSeen) encoded.add(row.tokens);
      totals.tokensDone +=
        firstSeen.reduce((sum, row) => sum + row.tokens.length, 0) +
        requestIndices.reduce((sum, index) => sum + (inputs[index] as ModelInput).continuationTokens.length, 0);
      totals.encoderTokens += rows.reduce((sum, row) => sum + row.tokens.length, 0);
      totals.paddedTokens += scores.paddedTokens;
      totals.logitRows += scores.logitRows;
      reportProgress(totals);
    },
    concurrency,
  );
  // What lm-eval encodes (every request's context) less what ran here.
  const everyContext = inputs.reduce((sum, input) => sum + input.inputTokens.length, 0);
  return {
    results,
    stats: {
      requests: inputs.length,
      rows: groups.length,
      batches: passes.length,
      inputTokens: tokensTotal,
      paddedTokens: totals.paddedTokens,
      logitRows: totals.logitRows,
      prefixGroups: 0,
      reusedPrefixTokens: everyContext - totals.encoderTokens,
      wallMs: performance.now() - started,
    },
  };
}
