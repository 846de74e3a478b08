/**
 * PIQA as lm-eval's `piqa` (lm_eval/tasks/piqa/piqa.yaml, v0.4.4–v0.4.8, whose dataset_path was `piqa`): the
 * validation split,
 *   doc_to_text "Question: {{goal}}\nAnswer:", doc_to_choice "{{[sol1, sol2]}}", doc_to_target label
 * metrics acc and acc_norm. Few-shot examples come from the train split (default sampler, extra draw: the
 * config's test_split is null, as is its fewshot_split).
 *
 * Rows are the hub's (goal, sol1, sol2, label 0 or 1). The release keeps the labels apart, one per line in
 * `valid-labels.lst` beside `valid.jsonl`; they are joined by position, as the hub's builder does.
 */
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import { checkRowLength, parseJsonLines } from '../jsonl.js';
import { parquetInt } from '../parquet-rows.js';
import { parquetParser } from '../split-source.js';
import type { SingleTask } from './single-task.js';

interface PiqaDoc {
  readonly [column: string]: unknown;
  readonly goal: string;
  readonly sol1: string;
  readonly sol2: string;
  readonly label: 0 | 1;
}

const text = z.string();
const label = parquetInt.pipe(z.union([z.literal(0), z.literal(1)], { error: 'label must be 0 or 1 (sol1, sol2)' }));
const hubShape = { goal: text, sol1: text, sol2: text, label };
const releaseRow = z.looseObject({ goal: text, sol1: text, sol2: text });

/** The release's labels file: one 0 or 1 per line, as many as the questions. */
function parseLabels(content: string, file: string, count: number): (0 | 1)[] {
  const lines = content.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const labels = lines.map((line, index) => {
    checkRowLength(line.length, file, index + 1);
    const value = line.trim();
    if (value !== '0' && value !== '1') throw new MlrbError('BAD_DATA', `${file} line ${index + 1}: a label must be 0 or 1`, { file, line: index + 1 });
    return value === '0' ? 0 : 1;
  });
  if (labels.length !== count) throw new MlrbError('BAD_DATA', `${file} has ${labels.length} labels for ${count} questions`, { file });
  return labels;
}

export const piqa: SingleTask<PiqaDoc> = {
  spec: {
    name: 'piqa',
    version: 1,
    docToText: (doc) => `Question: ${doc.goal}\nAnswer:`,
    docToChoices: (doc) => [doc.sol1, doc.sol2],
    docToTarget: (doc) => doc.label,
    metrics: ['acc', 'acc_norm'],
    fewshot: { sampler: 'default', drawsExtra: true },
    lmEval: {
      datasetPath: 'piqa',
      splits: { training_split: 'train', validation_split: 'validation' },
      docToText: 'Question: {{goal}}\nAnswer:',
      docToTarget: 'label',
      docToChoice: '{{[sol1, sol2]}}',
      shouldDecontaminate: true,
    },
  },
  evaluatedSplit: 'validation',
  fewshotSplit: 'train',
  data: {
    folder: 'piqa',
    label: 'PIQA',
    hubRepos: ['ybisk/piqa', 'baber/piqa', 'piqa'],
    release: {
      description: 'the release, valid.jsonl and valid-labels.lst (train.jsonl and train-labels.lst beside them for few-shot)',
      files: { validation: ['valid.jsonl', 'valid-labels.lst'], train: ['train.jsonl', 'train-labels.lst'] },
      parse: ([questions = '', labels = ''], [questionFile = '', labelFile = '']) => {
        const rows = parseJsonLines(questions, questionFile, releaseRow);
        const golds = parseLabels(labels, labelFile, rows.length);
        return rows.map(({ row }, index) => ({ goal: row.goal, sol1: row.sol1, sol2: row.sol2, label: golds[index] ?? 0 }));
      },
    },
    hub: {
      description:
        "the Hugging Face hub's ybisk/piqa or baber/piqa parquet, data/validation-00000-of-00001.parquet (or <config>/validation/0000.parquet), train beside it for few-shot",
      configs: ['data', 'default', 'plain_text', ''],
      parse: parquetParser(hubShape, (row) => row),
    },
  },
};
