/**
 * Argument checks for TextGenerator.generate, before any work starts: malformed settings are RangeError /
 * TypeError (the caller's code is wrong), prompts the model cannot run are MlrbError BAD_DATA naming the prompt
 * and token (the caller's data is wrong), as everywhere else in the library (src/errors.ts).
 */
import { MlrbError } from '../errors.js';
import type { GenerationSettings } from './types.js';

function requireInteger(value: unknown, what: string, minimum: number): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    throw new RangeError(`${what} must be an integer >= ${minimum}, got ${String(value)}`);
  }
}

export function checkSettings(settings: GenerationSettings): void {
  requireInteger(settings.maxNewTokens, 'maxNewTokens', 1);
  if (settings.stopStrings !== undefined && !settings.stopStrings.every((stop) => typeof stop === 'string')) {
    throw new TypeError('stopStrings must be strings');
  }
  for (const id of settings.eosTokenIds ?? []) requireInteger(id, 'eosTokenIds entries', 0);
  const sampling = settings.sampling;
  if (sampling === undefined) return;
  if (typeof sampling.temperature !== 'number' || !Number.isFinite(sampling.temperature) || sampling.temperature <= 0) {
    throw new RangeError(`sampling.temperature must be a finite number > 0, got ${String(sampling.temperature)}`);
  }
  if (sampling.topK !== undefined) requireInteger(sampling.topK, 'sampling.topK', 0);
  requireInteger(sampling.seed, 'sampling.seed', 0);
}

/**
 * Every prompt non-empty, its ids in the vocabulary, and room for maxNewTokens within the model's length (null:
 * none, as for an encoder-decoder, whose relative positions take any length).
 */
export function checkPrompts(
  prompts: readonly (readonly number[])[],
  limits: { readonly vocabSize: number | null; readonly maxLength: number | null; readonly maxNewTokens: number; readonly model: string },
): void {
  if (!Array.isArray(prompts)) throw new TypeError('prompts must be an array of token-id arrays');
  prompts.forEach((prompt, index) => {
    if (!Array.isArray(prompt)) throw new TypeError(`prompt ${index} must be an array of token ids`);
    if (prompt.length === 0) {
      throw new MlrbError('BAD_DATA', `prompt ${index} is empty; a prompt needs at least one token`, { prompt: index });
    }
    prompt.forEach((id, position) => {
      const outside = !Number.isInteger(id) || id < 0 || (limits.vocabSize !== null && id >= limits.vocabSize);
      if (outside) {
        throw new MlrbError(
          'BAD_DATA',
          `prompt ${index} token ${position} is ${String(id)}, not an id of ${limits.model}'s vocabulary [0, ${limits.vocabSize ?? '?'})`,
          { prompt: index, position, tokenId: id },
        );
      }
    });
    if (limits.maxLength !== null && prompt.length + limits.maxNewTokens > limits.maxLength) {
      throw new MlrbError(
        'BAD_DATA',
        `prompt ${index} has ${prompt.length} tokens; with maxNewTokens ${limits.maxNewTokens} it would pass ${limits.model}'s ` +
          `maximum length ${limits.maxLength} (truncate the prompt or lower maxNewTokens)`,
        { prompt: index, promptTokens: prompt.length, maxLength: limits.maxLength },
      );
    }
  });
}
