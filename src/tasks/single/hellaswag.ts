/**
 * HellaSwag as lm-eval's `hellaswag` (lm_eval/tasks/hellaswag, v0.4.4–v0.4.8): the validation split, with
 * utils.process_docs applied to every row:
 *   query   = preprocess(activity_label + ": " + ctx_a + " " + ctx_b.capitalize())
 *   choices = [preprocess(ending) for ending in endings]
 *   gold    = int(label)
 * where preprocess strips the text, turns " [title]" into ". ", deletes every "[...]" (WikiHow artefacts) and
 * then each double space. doc_to_text is "{{query}}", doc_to_choice "choices", doc_to_target "{{label}}";
 * metrics acc and acc_norm. Few-shot examples come from the train split (default sampler, extra draw: the
 * config's test_split is null, as is its fewshot_split).
 *
 * Rows are the hub's (`Rowan/hellaswag`, label a string); the release's `hellaswag_val.jsonl` (label an int)
 * is read into the same rows, as the hub's builder does.
 */
import { z } from 'zod';
import { pythonCapitalize, pythonStrip } from '../../text/python-text.js';
import { parquetInt } from '../parquet-rows.js';
import { jsonlParser, parquetParser } from '../split-source.js';
import type { SingleTask } from './single-task.js';

/** A hub row: the columns process_docs reads, and the others where the file has them. */
interface HubRow {
  readonly [column: string]: unknown;
  readonly activity_label: string;
  readonly ctx_a: string;
  readonly ctx_b: string;
  readonly endings: readonly string[];
  readonly label: string;
}

/** A hub row after process_docs, which adds query, choices and gold beside the row's own columns. */
interface HellaSwagDoc extends HubRow {
  readonly query: string;
  readonly choices: readonly string[];
  readonly gold: number;
}

/** utils.preprocess. Python's `.` matches any character but "\n", where JavaScript's also stops at \r, U+2028 and U+2029. */
export function preprocessHellaSwag(text: string): string {
  return pythonStrip(text)
    .replaceAll(' [title]', '. ')
    .replace(/\[[^\n]*?\]/g, '')
    .replaceAll('  ', ' ');
}

/** utils.process_docs; the label must index an ending (lm-eval would fail on it otherwise). */
function processDoc(row: HubRow): HellaSwagDoc | string {
  if (!/^\d+$/.test(row.label) || Number(row.label) >= row.endings.length) {
    return `column "label": ${JSON.stringify(row.label)} is not the index of one of the ${row.endings.length} endings`;
  }
  return {
    ...row,
    query: preprocessHellaSwag(`${row.activity_label}: ${row.ctx_a} ${pythonCapitalize(row.ctx_b)}`),
    choices: row.endings.map(preprocessHellaSwag),
    gold: Number(row.label),
  };
}

const text = z.string();
/** The columns process_docs reads. */
const usedColumns = { activity_label: text, ctx_a: text, ctx_b: text, endings: z.array(text), label: text };
/** The hub's other columns, kept for --log-samples (and few-shot document equality) where present. */
const keptColumns = { ind: parquetInt.optional(), ctx: text.optional(), source_id: text.optional(), split: text.optional(), split_type: text.optional() };
const releaseRow = z.looseObject({ ...usedColumns, ...keptColumns, ind: z.number().int().optional(), label: z.number().int() });

export const hellaswag: SingleTask<HellaSwagDoc> = {
  spec: {
    name: 'hellaswag',
    version: 1,
    docToText: (doc) => doc.query,
    docToChoices: (doc) => doc.choices,
    docToTarget: (doc) => doc.gold,
    metrics: ['acc', 'acc_norm'],
    fewshot: { sampler: 'default', drawsExtra: true },
    lmEval: {
      tag: 'multiple_choice',
      datasetPath: 'hellaswag',
      splits: { training_split: 'train', validation_split: 'validation' },
      docToText: '{{query}}',
      docToTarget: '{{label}}',
      docToChoice: 'choices',
      shouldDecontaminate: false,
    },
  },
  evaluatedSplit: 'validation',
  fewshotSplit: 'train',
  data: {
    folder: 'hellaswag',
    label: 'HellaSwag',
    hubRepos: ['Rowan/hellaswag', 'hellaswag'],
    release: {
      description: "the release (rowanz/hellaswag's data folder), hellaswag_val.jsonl (hellaswag_train.jsonl beside it for few-shot)",
      files: { validation: ['hellaswag_val.jsonl'], train: ['hellaswag_train.jsonl'] },
      // The hub's builder keeps these fields, in its column order, with the label as a string.
      parse: jsonlParser(releaseRow, ({ ind, activity_label, ctx_a, ctx_b, ctx, endings, source_id, split, split_type, label }) =>
        processDoc({ ind, activity_label, ctx_a, ctx_b, ctx, endings, source_id, split, split_type, label: String(label) }),
      ),
    },
    hub: {
      description:
        "the Hugging Face hub's Rowan/hellaswag parquet, data/validation-00000-of-00001.parquet (or default/validation/0000.parquet), train beside it for few-shot",
      configs: ['data', 'default', ''],
      parse: parquetParser({ ...usedColumns, ...keptColumns }, processDoc, ['ind', 'ctx', 'source_id', 'split', 'split_type']),
    },
  },
};
