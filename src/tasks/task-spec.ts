/**
 * A multiple-choice task as one declarative spec: lm-eval's YAML fields (doc_to_text, doc_to_choice,
 * doc_to_target, metric_list …) as typed functions of the document, plus the facts its results report.
 * `buildTask` applies a spec to a split's documents; the evaluator never sees the spec, only the task it makes,
 * so a new task is a new spec and a loader for its rows, with no new code path.
 */
import { applyLimit } from './data-files.js';
import { checkFewshotCount, DEFAULT_FEWSHOT_SEED } from './fewshot/sampler.js';
import type {
  MultipleChoiceAggregationName,
  DocAnswers,
  DocScoring,
  FewshotConfig,
  LmEvalTaskFacts,
  MetricName,
  MultipleChoiceDoc,
  MultipleChoiceTask,
} from './types.js';

/** A document as lm-eval sees it: the dataset row after the task's preprocessing. */
export type TaskDocument = Readonly<Record<string, unknown>>;

/** What every spec states, whichever form its prompts take. */
interface TaskSpecFacts {
  /** lm-eval's task name. */
  readonly name: string;
  /** metadata.version. */
  readonly version: number;
  /** Defaults: description "", target_delimiter " ", fewshot_delimiter "\n\n" (lm-eval's). */
  readonly description?: string;
  readonly targetDelimiter?: string;
  readonly fewshotDelimiter?: string;
  readonly metrics: readonly MetricName[];
  readonly aggregations?: Readonly<Partial<Record<MetricName, MultipleChoiceAggregationName>>>;
  readonly docScoring?: DocScoring;
  readonly tags?: Readonly<Record<string, string>>;
  readonly lmEval?: LmEvalTaskFacts;
  /**
   * How --num_fewshot examples are drawn. `pinnedZeroShot`: the lm-eval config sets num_fewshot: 0, and lm-eval
   * then ignores --num_fewshot. `drawsExtra`: the config's fewshot_split equals its test_split (both unset).
   */
  readonly fewshot: { readonly sampler: 'first_n' | 'default'; readonly drawsExtra: boolean } | { readonly pinnedZeroShot: true };
}

/** The usual form: one context per document, one continuation per choice. */
export interface SingleInputTaskSpec<Doc extends TaskDocument> extends TaskSpecFacts {
  readonly docToText: (doc: Doc) => string;
  readonly docToChoices: (doc: Doc) => readonly string[];
  /**
   * An index into the choices, or a string, which lm-eval looks up among the choices (-1 when absent) and shows
   * as the answer of few-shot examples.
   */
  readonly docToTarget: (doc: Doc) => number | string;
  /** Required by `answer` scoring: the candidate text behind each choice and the gold answers. */
  readonly docToAnswers?: (doc: Doc) => DocAnswers;
}

/**
 * lm-eval's multiple-input form (Winogrande's partial scoring): the options are contexts and one continuation
 * is scored after each. lm-eval recognises it by doc_to_text returning an int (the gold index); here it is
 * named, so no spec becomes multiple-input by accident.
 */
export interface MultipleInputTaskSpec<Doc extends TaskDocument> extends TaskSpecFacts {
  /** lm-eval's doc_to_choice: one context per option. */
  readonly docToContexts: (doc: Doc) => readonly string[];
  /** lm-eval's doc_to_text in this form: the index of the gold context. */
  readonly docToGold: (doc: Doc) => number;
  /** lm-eval's doc_to_target in this form: the continuation, the same after every context. */
  readonly docToContinuation: (doc: Doc) => string;
}

export type MultipleChoiceTaskSpec<Doc extends TaskDocument> = SingleInputTaskSpec<Doc> | MultipleInputTaskSpec<Doc>;

interface TaskInputBase<Doc extends TaskDocument> {
  /** The evaluated split, in order. */
  readonly docs: readonly Doc[];
  /** The split few-shot examples come from (may be `docs` itself). */
  readonly fewshotDocs?: readonly Doc[];
  readonly sourceFiles: readonly string[];
  readonly numFewshot?: number;
}

/**
 * The documents, whole with an optional --limit to apply, or already limited by the reader (SplitSource's
 * readLimited) with the split's size in `totalDocs`.
 */
export type TaskInput<Doc extends TaskDocument> = TaskInputBase<Doc> &
  ({ readonly limit?: number; readonly totalDocs?: never } | { readonly totalDocs: number; readonly limit?: never });

/** Bad options (an impossible few-shot count) throw a RangeError; the documents are assumed valid. */
export function buildTask<Doc extends TaskDocument>(spec: MultipleChoiceTaskSpec<Doc>, input: TaskInput<Doc>): MultipleChoiceTask {
  const docs = input.docs.map((doc, docId) => toMultipleChoiceDoc(spec, doc, docId));
  const pinned = 'pinnedZeroShot' in spec.fewshot;
  const numFewshot = pinned ? 0 : (input.numFewshot ?? 0);
  let fewshot: FewshotConfig | undefined;
  if (!('pinnedZeroShot' in spec.fewshot) && input.fewshotDocs !== undefined) {
    const fewshotDocs = input.fewshotDocs === input.docs ? docs : input.fewshotDocs.map((doc, docId) => toMultipleChoiceDoc(spec, doc, docId));
    fewshot = { sampler: spec.fewshot.sampler, docs: fewshotDocs, drawsExtra: spec.fewshot.drawsExtra, seed: DEFAULT_FEWSHOT_SEED };
  }
  checkFewshotCount(spec.name, fewshot, numFewshot);
  return {
    kind: 'multiple_choice',
    name: spec.name,
    version: spec.version,
    description: spec.description ?? '',
    targetDelimiter: spec.targetDelimiter ?? ' ',
    fewshotDelimiter: spec.fewshotDelimiter ?? '\n\n',
    docs: input.totalDocs === undefined ? applyLimit(docs, input.limit) : docs,
    ...(fewshot !== undefined ? { fewshot } : {}),
    numFewshot,
    totalDocs: input.totalDocs ?? docs.length,
    metrics: spec.metrics,
    ...(spec.aggregations !== undefined ? { aggregations: spec.aggregations } : {}),
    ...(spec.docScoring !== undefined ? { docScoring: spec.docScoring } : {}),
    tags: spec.tags ?? {},
    sourceFiles: input.sourceFiles,
    ...(spec.lmEval !== undefined ? { lmEval: spec.lmEval } : {}),
  };
}

function toMultipleChoiceDoc<Doc extends TaskDocument>(spec: MultipleChoiceTaskSpec<Doc>, doc: Doc, docId: number): MultipleChoiceDoc {
  if ('docToContexts' in spec) {
    const contexts = spec.docToContexts(doc);
    const gold = spec.docToGold(doc);
    const continuation = spec.docToContinuation(doc);
    // lm-eval's sampler shows a multiple-input example as its gold context and the continuation.
    return { docId, text: contexts[gold] ?? '', choices: contexts, target: gold, targetText: continuation, continuation, source: doc };
  }
  const choices = spec.docToChoices(doc);
  const target = spec.docToTarget(doc);
  return {
    docId,
    text: spec.docToText(doc),
    choices,
    target: typeof target === 'number' ? target : choices.indexOf(target),
    ...(typeof target === 'string' ? { targetText: target } : {}),
    ...(spec.docToAnswers !== undefined ? { answers: spec.docToAnswers(doc) } : {}),
    source: doc,
  };
}
