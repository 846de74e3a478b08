/**
 * The engine's one interface: model inputs in, one result per input out in input order, with the run's stats.
 * Progress, batch callbacks and the per-input description for errors ride in the options and `describe`.
 * The score cache (src/cache/cached-scoring.ts) wraps a scorer in another of the same shape; the engine itself
 * knows no cache.
 */
import type { LanguageModel } from '../model/onnx-model.js';
import type { ModelInput } from './model-input.js';
import { scoreModelInputs, type ScoreOptions, type ScoreOutput } from './score-requests.js';

export type InputScorer = (inputs: readonly ModelInput[], options: ScoreOptions, describe: (index: number) => string) => Promise<ScoreOutput>;

/** The model's own scorer: every input goes through its forward passes. */
export function modelScorer(model: LanguageModel): InputScorer {
  return (inputs, options, describe) => scoreModelInputs(model, inputs, options, describe);
}
