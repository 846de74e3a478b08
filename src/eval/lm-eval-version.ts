/**
 * Which lm-eval release's rules a run follows. The default is the MLRB era, v0.4.4–v0.4.8: published numbers
 * were made with it, and every release in that range builds the same token ids and results file. v0.4.13 (what
 * `pip install lm-eval` gives today) lets the tokenizer add BOS to contexts (lm-eval PR #3347), so a model
 * whose tokenizer adds one scores differently; a user comparing with a current lm-eval run picks it.
 * What else differs is listed in the README ("lm-eval versions").
 */
export const LM_EVAL_VERSIONS = ['0.4.4-0.4.8', '0.4.13'] as const;
export type LmEvalVersion = (typeof LM_EVAL_VERSIONS)[number];

export const DEFAULT_LM_EVAL_VERSION: LmEvalVersion = '0.4.4-0.4.8';

/**
 * The release a results file names as `lm_eval_version`: lm-eval writes its own version there, and of a range
 * the newest release is the one whose file layout ours follows.
 */
export function lmEvalReleaseOf(version: LmEvalVersion): string {
  return version === '0.4.13' ? '0.4.13' : '0.4.8';
}
