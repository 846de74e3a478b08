/**
 * The eight SuperGLUE tasks of lm-eval's `super-glue-lm-eval-v1` tag (lm_eval/tasks/super_glue/<task>/default.yaml,
 * v0.4.4–v0.4.8), each one declarative spec over the Hugging Face `super_glue` rows, plus the reader that turns a
 * release JSONL split into those rows. Every task evaluates the validation split; few-shot examples come from
 * the train split with the default sampler and, since these configs set neither fewshot_split nor test_split,
 * lm-eval's extra draw.
 */
import { z } from 'zod';
import { pythonRecaseFirst, pythonSlice, pythonStrip } from '../../text/python-text.js';
import { badRow, parseJsonLines } from '../jsonl.js';
import type { MultipleChoiceTaskSpec, TaskDocument } from '../task-spec.js';
import type { LmEvalTaskFacts, MetricName } from '../types.js';
import { booleanLabel, choiceLabel, classLabel } from './labels.js';
import { checkMultircAnswers, flattenMultircRows, multircChoices, multircRowSchema, type MultircDoc } from './multirc.js';
import { formatRecordAnswer, recordDocs, recordDocToText, recordRowSchema, type RecordDoc } from './record.js';
import { fixWscSpans, wscDocToText, type WscDoc } from './wsc.js';

export interface SuperGlueTask<Doc extends TaskDocument> {
  readonly spec: MultipleChoiceTaskSpec<Doc>;
  /** The task's folder in the official release (`BoolQ/val.jsonl`, `BoolQ/train.jsonl` …). */
  readonly folder: string;
  /** The metric the `superglue` score takes from this task. */
  readonly scoreMetric: MetricName;
  /** Reads one split file into lm-eval's documents; a bad row is a BAD_DATA error naming its line. */
  readonly readDocs: (content: string, file: string) => Doc[];
}

const text = z.string();
const index = z.number().int().nonnegative();
const idx = z.number().int();
const FEWSHOT = { sampler: 'default', drawsExtra: true } as const;

function facts(
  datasetName: string,
  docToText: string,
  docToTarget: string,
  docToChoice: string | readonly string[],
  shouldDecontaminate = false,
): LmEvalTaskFacts {
  return {
    tag: 'super-glue-lm-eval-v1',
    datasetPath: 'aps/super_glue',
    datasetName,
    splits: { training_split: 'train', validation_split: 'validation' },
    docToText,
    docToTarget,
    docToChoice,
    shouldDecontaminate,
  };
}

/** A reader for tasks whose rows are the documents (all but MultiRC and ReCoRD). */
function rowReader<Schema extends z.ZodType<TaskDocument>>(schema: Schema): (content: string, file: string) => z.output<Schema>[] {
  return (content, file) => parseJsonLines(content, file, schema).map(({ row }) => row);
}

const boolqSchema = z.looseObject({ question: text, passage: text, idx, label: booleanLabel });
export const boolq: SuperGlueTask<z.output<typeof boolqSchema>> = {
  folder: 'BoolQ',
  scoreMetric: 'acc',
  readDocs: rowReader(boolqSchema),
  spec: {
    name: 'boolq',
    version: 2,
    docToText: (doc) => `${doc.passage}\nQuestion: ${doc.question}?\nAnswer:`,
    docToChoices: () => ['no', 'yes'],
    docToTarget: (doc) => doc.label,
    metrics: ['acc'],
    fewshot: FEWSHOT,
    lmEval: facts('boolq', '{{passage}}\nQuestion: {{question}}?\nAnswer:', 'label', ['no', 'yes'], true),
  },
};

const cbSchema = z.looseObject({ premise: text, hypothesis: text, idx, label: classLabel(['entailment', 'contradiction', 'neutral']) });
export const cb: SuperGlueTask<z.output<typeof cbSchema>> = {
  folder: 'CB',
  scoreMetric: 'acc',
  readDocs: rowReader(cbSchema),
  spec: {
    name: 'cb',
    version: 1,
    docToText: (doc) => `${doc.premise}\nQuestion: ${doc.hypothesis}. True, False, or Neither?\nAnswer:`,
    docToChoices: () => ['True', 'False', 'Neither'],
    docToTarget: (doc) => doc.label,
    metrics: ['acc', 'f1'],
    aggregations: { f1: 'cb_multi_fi' },
    fewshot: FEWSHOT,
    lmEval: facts('cb', '{{premise}}\nQuestion: {{hypothesis}}. True, False, or Neither?\nAnswer:', 'label', ['True', 'False', 'Neither']),
  },
};

/** copa/utils.py: the choice with its first letter lowercased, after a space of its own (so two with the delimiter). */
const copaChoice = (choice: string): string => ` ${pythonRecaseFirst(choice, 'lower')}`;
const copaSchema = z.looseObject({ premise: text, choice1: text, choice2: text, question: z.enum(['cause', 'effect']), idx, label: choiceLabel });
export const copa: SuperGlueTask<z.output<typeof copaSchema>> = {
  folder: 'COPA',
  scoreMetric: 'acc',
  readDocs: rowReader(copaSchema),
  spec: {
    name: 'copa',
    version: 1,
    // The premise loses its last character (the period) and gains the connector.
    docToText: (doc) => `${pythonSlice(pythonStrip(doc.premise), 0, -1)} ${doc.question === 'cause' ? 'because' : 'therefore'}`,
    docToChoices: (doc) => [copaChoice(doc.choice1), copaChoice(doc.choice2)],
    docToTarget: (doc) => copaChoice(doc.label === 0 ? doc.choice1 : doc.choice2),
    metrics: ['acc'],
    fewshot: FEWSHOT,
    lmEval: facts('copa', '!function utils.doc_to_text', '!function utils.doc_to_target', '!function utils.doc_to_choice'),
  },
};

export const multirc: SuperGlueTask<MultircDoc> = {
  folder: 'MultiRC',
  scoreMetric: 'acc',
  readDocs: (content, file) => {
    const rows = parseJsonLines(content, file, multircRowSchema);
    checkMultircAnswers(rows, file);
    return flattenMultircRows(rows);
  },
  spec: {
    name: 'multirc',
    version: 2,
    docToText: (doc) => `${doc.paragraph}\nQuestion: ${doc.question}\nAnswer:`,
    docToChoices: multircChoices,
    docToTarget: (doc) => doc.label,
    metrics: ['acc'],
    fewshot: FEWSHOT,
    lmEval: facts(
      'multirc',
      '{{paragraph}}\nQuestion: {{question}}\nAnswer:',
      'label',
      "['''{{answer}}\\nIs the answer correct? yes''', '''{{answer}}\\nIs the answer correct? no''']",
    ),
  },
};

export const record: SuperGlueTask<RecordDoc> = {
  folder: 'ReCoRD',
  scoreMetric: 'f1',
  readDocs: (content, file) => recordDocs(parseJsonLines(content, file, recordRowSchema), file),
  spec: {
    name: 'record',
    version: 2,
    docToText: recordDocToText,
    docToChoices: (doc) => doc.entities.map((entity) => formatRecordAnswer(doc.query, entity)),
    docToTarget: (doc) => formatRecordAnswer(doc.query, doc.answers[0] ?? ''),
    docToAnswers: (doc) => ({ candidates: doc.entities, gold: doc.answers }),
    docScoring: 'answer',
    metrics: ['f1', 'em'],
    fewshot: FEWSHOT,
    lmEval: facts('record', '!function util.doc_to_text', '!function util.doc_to_target', '!function util.doc_to_choice'),
  },
};

const rteSchema = z.looseObject({ premise: text, hypothesis: text, idx, label: classLabel(['entailment', 'not_entailment']) });
export const rte: SuperGlueTask<z.output<typeof rteSchema>> = {
  folder: 'RTE',
  scoreMetric: 'acc',
  readDocs: rowReader(rteSchema),
  spec: {
    name: 'sglue_rte',
    version: 0,
    docToText: (doc) => `${doc.premise}\nQuestion: ${doc.hypothesis} True or False?\nAnswer:`,
    docToChoices: () => ['True', 'False'],
    docToTarget: (doc) => doc.label,
    metrics: ['acc'],
    fewshot: FEWSHOT,
    lmEval: facts('rte', '{{premise}}\nQuestion: {{hypothesis}} True or False?\nAnswer:', 'label', ['True', 'False']),
  },
};

const wicSchema = z.looseObject({
  word: text,
  sentence1: text,
  sentence2: text,
  start1: index,
  end1: index,
  start2: index,
  end2: index,
  idx,
  label: booleanLabel,
});
export const wic: SuperGlueTask<z.output<typeof wicSchema>> = {
  folder: 'WiC',
  scoreMetric: 'acc',
  readDocs: rowReader(wicSchema),
  spec: {
    name: 'wic',
    version: 1,
    // The word is cut from sentence1 by its span (a Jinja slice: code points), not read from `word`.
    docToText: (doc) =>
      `Sentence 1: ${doc.sentence1}\nSentence 2: ${doc.sentence2}\nQuestion: Is the word '${pythonSlice(doc.sentence1, doc.start1, doc.end1)}' used in the same way in the two sentences above?\nAnswer:`,
    docToChoices: () => ['no', 'yes'],
    docToTarget: (doc) => doc.label,
    metrics: ['acc'],
    fewshot: FEWSHOT,
    lmEval: facts(
      'wic',
      "Sentence 1: {{sentence1}}\nSentence 2: {{sentence2}}\nQuestion: Is the word '{{sentence1[start1:end1]}}' used in the same way in the two sentences above?\nAnswer:",
      'label',
      ['no', 'yes'],
    ),
  },
};

/** The release nests the spans under `target`; the builder lifts them to the row (`row.update(row["target"])`). */
const wscSchema = z.looseObject({
  text,
  target: z.looseObject({ span1_index: index, span2_index: index, span1_text: text, span2_text: text }),
  idx,
  label: booleanLabel,
});
export const wsc: SuperGlueTask<WscDoc> = {
  folder: 'WSC',
  scoreMetric: 'acc',
  readDocs: (content, file) =>
    parseJsonLines(content, file, wscSchema).map(({ row, line }) => {
      const { span1_index, span2_index, span1_text, span2_text } = row.target;
      const fixed = fixWscSpans({ text: row.text, span1_index, span2_index, span1_text, span2_text, idx: row.idx, label: row.label });
      return typeof fixed === 'string' ? badRow(file, line, fixed) : fixed;
    }),
  spec: {
    name: 'wsc',
    version: 1,
    docToText: wscDocToText,
    docToChoices: () => ['no', 'yes'],
    docToTarget: (doc) => doc.label,
    metrics: ['acc'],
    fewshot: FEWSHOT,
    lmEval: facts('wsc.fixed', '!function preprocess_wsc.default_doc_to_text', 'label', ['no', 'yes']),
  },
};
