/**
 * The math-reasoning command's defaults, in a file that imports nothing: the CLI's shared flag table states them in
 * every command's usage, and importing score.ts for three numbers would load the whole scorer (Lean, BLEU, ROUGE)
 * into every command's start-up.
 */
export const DEFAULT_MAX_NEW_TOKENS = 200;
export const DEFAULT_MAX_PROMPT_TOKENS = 512;
export const DEFAULT_LEAN_TIMEOUT_S = 60;
