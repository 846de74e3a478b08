/**
 * GSM8K as lm-eval's `gsm8k` (lm_eval/tasks/gsm8k/gsm8k.yaml, metadata.version 3.0; the same YAML in v0.4.4–v0.4.8
 * and v0.4.13 but for dataset_path, `gsm8k` then and `openai/gsm8k` now):
 *   dataset main, test split evaluated, few-shot examples from train with the default (random, seed 1234) sampler,
 *   5-shot unless --num_fewshot says otherwise;
 *   doc_to_text "Question: {{question}}\nAnswer:", doc_to_target "{{answer}}" (the whole worked answer, ending in
 *   "#### <number>"), target delimiter " " and few-shot delimiter "\n\n" (lm-eval's defaults);
 *   generation_kwargs until ["Question:", "</s>", "<|im_end|>"], do_sample false, temperature 0 (no max_gen_toks:
 *   HFLM's default 256 applies);
 *   filters strict-match (regex "#### (\-?[0-9\.\,]+)", take_first) and flexible-extract (regex
 *   "(-?[$0-9.,]{2,})|(-?[0-9]+)" with group_select -1, take_first);
 *   metric exact_match (mean) with ignore_case, not ignore_punctuation, regexes_to_ignore [",", "\$", "(?s).*#### ",
 *   "\.$"].
 * Every value here is checked against the YAML in the lm_eval 0.4.13 wheel by
 * scripts/lm_eval/record_gsm8k_expectations.py (test/fixtures/lm-eval/gsm8k-expectations.json).
 */
import type { ExactMatchOptions, FilterPipeline, GenerateUntilLmEvalFacts, GenerationKwargs } from '../generate-until-types.js';

/** A GSM8K row: the hub's columns and the release's JSONL keys are the same two strings. */
export interface Gsm8kRow {
  readonly [column: string]: unknown;
  readonly question: string;
  readonly answer: string;
}

export const GSM8K_TASK = 'gsm8k';
export const GSM8K_VERSION = 3;
export const GSM8K_DEFAULT_FEWSHOT = 5;

export const gsm8kDocToText = (row: Gsm8kRow): string => `Question: ${row.question}\nAnswer:`;
export const gsm8kDocToTarget = (row: Gsm8kRow): string => row.answer;

export const GSM8K_GENERATION: GenerationKwargs = { until: ['Question:', '</s>', '<|im_end|>'], doSample: false, temperature: 0 };

export const GSM8K_FILTERS: readonly FilterPipeline[] = [
  {
    name: 'strict-match',
    steps: [{ function: 'regex', regexPattern: '#### (\\-?[0-9\\.\\,]+)', groupSelect: 0, fallback: '[invalid]' }, { function: 'take_first' }],
  },
  {
    name: 'flexible-extract',
    steps: [{ function: 'regex', regexPattern: '(-?[$0-9.,]{2,})|(-?[0-9]+)', groupSelect: -1, fallback: '[invalid]' }, { function: 'take_first' }],
  },
];

export const GSM8K_EXACT_MATCH: ExactMatchOptions = {
  regexesToIgnore: [',', '\\$', '(?s).*#### ', '\\.$'],
  ignoreCase: true,
  ignorePunctuation: false,
  ignoreNumbers: false,
};

export const GSM8K_LM_EVAL: GenerateUntilLmEvalFacts = {
  tag: 'math_word_problems',
  datasetPath: 'gsm8k',
  datasetName: 'main',
  splits: { training_split: 'train', test_split: 'test', fewshot_split: 'train' },
  docToText: 'Question: {{question}}\nAnswer:',
  docToTarget: '{{answer}}',
  shouldDecontaminate: false,
};
