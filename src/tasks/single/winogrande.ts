/**
 * WinoGrande as lm-eval's `winogrande` (lm_eval/tasks/winogrande, v0.4.4–v0.4.8, dataset `winogrande`,
 * config winogrande_xl): the validation split, scored by partial evaluation. The sentence has one blank "_";
 * each option fills it, and what follows the blank is scored after each filled-in beginning. In lm-eval's
 * terms (preprocess_winogrande.py) doc_to_text returns the gold index, which makes the task multiple-input:
 *   doc_to_choice [sentence[:i] + option1, sentence[:i] + option2]   i = sentence.index("_")
 *   doc_to_target sentence[i + 1:].strip()
 *   doc_to_text   {"1": 0, "2": 1}[answer]
 * and each request is (context + choice, " " + target). Metric acc. Few-shot examples come from the train split
 * (default sampler, extra draw); an example shows its gold beginning and the rest of its sentence.
 *
 * Rows are the hub's (sentence, option1, option2, answer "1" or "2"); the release's JSONL (which adds qID, and
 * keeps the answer in the row) is read into the same rows, as the hub's builder does.
 */
import { z } from 'zod';
import { pythonStrip } from '../../text/python-text.js';
import { jsonlParser, parquetParser } from '../split-source.js';
import type { SingleTask } from './single-task.js';

interface WinograndeDoc {
  readonly [column: string]: unknown;
  readonly sentence: string;
  readonly option1: string;
  readonly option2: string;
  readonly answer: string;
}

const ANSWER_INDEX: Readonly<Record<string, number>> = { '1': 0, '2': 1 };

/** The document, or what lm-eval would fail on: a sentence without a blank, an answer other than "1" and "2". */
function checked(doc: WinograndeDoc): WinograndeDoc | string {
  if (!doc.sentence.includes('_')) return 'column "sentence": has no blank "_" to fill';
  if (ANSWER_INDEX[doc.answer] === undefined) return `column "answer": ${JSON.stringify(doc.answer)} is neither "1" nor "2"`;
  return doc;
}

const text = z.string();
const rowShape = { sentence: text, option1: text, option2: text, answer: text };
const releaseRow = z.looseObject(rowShape);

/** The two beginnings, each up to the blank with one option in it. */
export function winograndeContexts(doc: WinograndeDoc): string[] {
  const beforeBlank = doc.sentence.slice(0, doc.sentence.indexOf('_'));
  return [beforeBlank + doc.option1, beforeBlank + doc.option2];
}

/** The rest of the sentence after the blank, stripped (Python's str.strip). */
export function winograndeContinuation(doc: WinograndeDoc): string {
  return pythonStrip(doc.sentence.slice(doc.sentence.indexOf('_') + 1));
}

export const winogrande: SingleTask<WinograndeDoc> = {
  spec: {
    name: 'winogrande',
    version: 1,
    docToContexts: winograndeContexts,
    docToGold: (doc) => ANSWER_INDEX[doc.answer] ?? -1,
    docToContinuation: winograndeContinuation,
    metrics: ['acc'],
    fewshot: { sampler: 'default', drawsExtra: true },
    lmEval: {
      datasetPath: 'winogrande',
      datasetName: 'winogrande_xl',
      splits: { training_split: 'train', validation_split: 'validation' },
      docToText: '!function preprocess_winogrande.doc_to_text',
      docToTarget: '!function preprocess_winogrande.doc_to_target',
      docToChoice: '!function preprocess_winogrande.doc_to_choice',
      shouldDecontaminate: true,
    },
  },
  evaluatedSplit: 'validation',
  fewshotSplit: 'train',
  data: {
    folder: 'winogrande',
    label: 'WinoGrande',
    hubRepos: ['allenai/winogrande', 'winogrande'],
    release: {
      description: 'the release (winogrande_1.1), dev.jsonl (train_xl.jsonl beside it for few-shot)',
      files: { validation: ['dev.jsonl'], train: ['train_xl.jsonl'] },
      parse: jsonlParser(releaseRow, ({ sentence, option1, option2, answer }) => checked({ sentence, option1, option2, answer })),
    },
    hub: {
      description: "the Hugging Face hub's allenai/winogrande parquet, winogrande_xl/validation-00000-of-00001.parquet (train beside it for few-shot)",
      configs: ['winogrande_xl'],
      parse: parquetParser(rowShape, checked),
    },
  },
};
