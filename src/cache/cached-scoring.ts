/**
 * A scorer wrapped in the score cache (score-cache.ts): requests with stored results are filled in, only the
 * rest go to the wrapped scorer (the model's), and each forward pass is stored as it finishes, so a killed run resumes
 * where it stopped. Progress counts every request (the cached ones at once, as requestsFromCache) but tokens
 * only of the requests the model scores, so the rate and the ETA are those of the work left.
 */
import type { InputScorer } from '../engine/scorer.js';
import type { ScoreCache } from './score-cache.js';
import type { LoglikelihoodResult, ModelInput } from '../engine/model-input.js';

export function cachedScorer(scorer: InputScorer, cache: ScoreCache): InputScorer {
  if (!cache.enabled) return scorer;
  return async (inputs, options, describe) => {
    const started = performance.now();
    const lookup = cache.lookup(inputs);
    const missing = lookup.results.flatMap((result, index) => (result === undefined ? [index] : []));
    const fromCache = inputs.length - missing.length;
    const { onProgress, onBatchScored } = options;
    if (fromCache > 0) {
      onProgress?.({ requestsDone: fromCache, requestsTotal: inputs.length, tokensDone: 0, tokensTotal: 0, requestsFromCache: fromCache, elapsedMs: 0 });
    }
    const output = await scorer(
      missing.map((index) => inputs[index] as ModelInput),
      {
        ...options,
        onBatchScored: (scored, results) => {
          const indices = scored.map((local) => missing[local] as number);
          cache.store(indices.map((index, position) => ({ digest: lookup.digests[index] as Uint8Array, result: results[position] as LoglikelihoodResult })));
          onBatchScored?.(indices, results);
        },
        ...(onProgress
          ? {
              onProgress: (progress) =>
                onProgress({ ...progress, requestsDone: fromCache + progress.requestsDone, requestsTotal: inputs.length, requestsFromCache: fromCache }),
            }
          : {}),
      },
      (local) => describe(missing[local] as number),
    );
    const results = lookup.results.slice() as LoglikelihoodResult[];
    missing.forEach((index, local) => {
      results[index] = output.results[local] as LoglikelihoodResult;
    });
    return { results, stats: { ...output.stats, requests: inputs.length, requestsFromCache: fromCache, wallMs: performance.now() - started } };
  };
}
