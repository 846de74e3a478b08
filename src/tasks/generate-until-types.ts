/**
 * lm-eval's `output_type: generate_until` as data: a task whose documents are answered by generating text, which
 * filter pipelines reduce to an answer and a metric compares with the document's target. A task's loader
 * (src/tasks/gsm8k/) fills these in; src/eval/generate-until/ turns them into prompts, generations, scores and
 * lm-eval's results entries.
 */

/** lm-eval's generation_kwargs, as a task's YAML states them. */
export interface GenerationKwargs {
  /** Stop strings; HFLM adds the EOS token's text (hflm-generate.ts). */
  readonly until: readonly string[];
  readonly doSample: boolean;
  readonly temperature: number;
  /** Absent: the model's default (HFLM: 256). */
  readonly maxGenToks?: number;
}

/** One step of a filter pipeline (lm-eval's filter registry names: `regex`, `take_first`). */
export type FilterStep =
  | {
      readonly function: 'regex';
      /** A Python `re` pattern, as the YAML spells it. */
      readonly regexPattern: string;
      /** Which of re.findall's matches is kept; Python indexing, so -1 is the last. lm-eval's default 0. */
      readonly groupSelect: number;
      /** What a response without a match becomes; lm-eval's default "[invalid]". */
      readonly fallback: string;
    }
  | { readonly function: 'take_first' };

/** One entry of lm-eval's filter_list: its name keys the metrics (`exact_match,strict-match`). */
export interface FilterPipeline {
  readonly name: string;
  readonly steps: readonly FilterStep[];
}

/** lm-eval's exact_match options (HF evaluate's exact_match, as lm-eval's metrics.py ports it). */
export interface ExactMatchOptions {
  /** Python `re` patterns removed (re.sub with "") from prediction and reference, in order. */
  readonly regexesToIgnore: readonly string[];
  readonly ignoreCase: boolean;
  readonly ignorePunctuation: boolean;
  readonly ignoreNumbers: boolean;
}

/** One evaluation document of a generate-until task. */
export interface GenerateUntilDoc {
  /** Position in its split (lm-eval's doc_id). */
  readonly docId: number;
  /** lm-eval's doc_to_text: the prompt without description or few-shot examples. */
  readonly text: string;
  /** lm-eval's doc_to_target: the reference the metric compares with, and a few-shot example's answer. */
  readonly target: string;
  /** The row as lm-eval sees it, for --log-samples and the few-shot sampler's equality test. */
  readonly source: Readonly<Record<string, unknown>>;
}

export interface GenerateUntilFewshot {
  /** lm-eval's samplers: `default` draws with random.Random(seed) per document; `first_n` takes the first k. */
  readonly sampler: 'default' | 'first_n';
  readonly docs: readonly GenerateUntilDoc[];
  /** lm-eval's fewshot_random_seed (1234 unless set). */
  readonly seed: number;
  /** True when the config's fewshot_split equals its test_split (the sampler then draws one extra). */
  readonly drawsExtra: boolean;
}

export interface GenerateUntilTask {
  readonly kind: 'generate_until';
  readonly name: string;
  /** metadata.version. */
  readonly version: number;
  readonly description: string;
  readonly targetDelimiter: string;
  readonly fewshotDelimiter: string;
  readonly docs: readonly GenerateUntilDoc[];
  readonly numFewshot: number;
  /** Absent when the run draws no examples (0-shot), so a 0-shot run needs no training split. */
  readonly fewshot?: GenerateUntilFewshot;
  readonly generationKwargs: GenerationKwargs;
  readonly filters: readonly FilterPipeline[];
  readonly metric: { readonly name: 'exact_match'; readonly options: ExactMatchOptions };
  /** Documents in the split before --limit (lm-eval's n-samples "original"). */
  readonly totalDocs: number;
  readonly sourceFiles: readonly string[];
  /** Extra facts for aggregation breakdowns; GSM8K has none. */
  readonly tags: Readonly<Record<string, string>>;
  readonly lmEval: GenerateUntilLmEvalFacts;
}

/** lm-eval's config fields that only the results' `configs` entry reports. */
export interface GenerateUntilLmEvalFacts {
  readonly tag?: string;
  /** The v0.4.4–v0.4.8 dataset id (gsm8k: `gsm8k`; 0.4.13 renamed it `openai/gsm8k`). */
  readonly datasetPath: string;
  readonly datasetName?: string;
  readonly splits: Readonly<Partial<Record<'training_split' | 'test_split' | 'validation_split' | 'fewshot_split', string>>>;
  /** The templates as the YAML spells them (Jinja), for display only. */
  readonly docToText: string;
  readonly docToTarget: string;
  readonly shouldDecontaminate: boolean;
}
