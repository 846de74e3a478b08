/**
 * The AI2 Reasoning Challenge as lm-eval's `arc_easy` and `arc_challenge` (lm_eval/tasks/arc, v0.4.4–v0.4.8;
 * arc_challenge includes arc_easy.yaml and changes only the task and dataset names): the test split,
 *   doc_to_text   "Question: {{question}}\nAnswer:"
 *   doc_to_choice "{{choices.text}}"
 *   doc_to_target "{{choices.label.index(answerKey)}}"
 * metrics acc and acc_norm. The target is the answer key's position among the choice labels, whichever way a
 * question labels them (most use A–E, some 1–5), so no letter-to-number table is involved. Few-shot examples
 * come from the train split (default sampler; no extra draw, as the config's test_split is set).
 *
 * Rows are the hub's (`allenai/ai2_arc`: id, question, choices {text, label}, answerKey); the release's JSONL
 * (question {stem, choices [{text, label}]}) is read into the same rows, as the hub's builder does.
 */
import { z } from 'zod';
import { jsonlParser, parquetParser } from '../split-source.js';
import type { SingleTask } from './single-task.js';

interface ArcDoc {
  readonly [column: string]: unknown;
  readonly id: string;
  readonly question: string;
  readonly choices: { readonly text: readonly string[]; readonly label: readonly string[] };
  readonly answerKey: string;
}

type ArcConfig = 'ARC-Easy' | 'ARC-Challenge';

const text = z.string();
const hubShape = { id: text, question: text, choices: z.object({ text: z.array(text), label: z.array(text) }), answerKey: text };
const releaseRow = z.looseObject({
  id: text,
  question: z.looseObject({ stem: text, choices: z.array(z.looseObject({ text, label: text })) }),
  answerKey: text,
});

/** The document, or what lm-eval would fail on: text and label lists that disagree, an answer key that is no label. */
function checked(doc: ArcDoc): ArcDoc | string {
  const { text: texts, label: labels } = doc.choices;
  if (texts.length !== labels.length) return `column "choices": ${texts.length} texts but ${labels.length} labels`;
  if (!labels.includes(doc.answerKey)) return `column "answerKey": ${JSON.stringify(doc.answerKey)} is not one of the choice labels ${labels.join(', ')}`;
  return doc;
}

function arcTask(name: 'arc_easy' | 'arc_challenge', config: ArcConfig): SingleTask<ArcDoc> {
  const releaseFile = (split: string): string => `${config}-${split}.jsonl`;
  return {
    spec: {
      name,
      version: 1,
      docToText: (doc) => `Question: ${doc.question}\nAnswer:`,
      docToChoices: (doc) => doc.choices.text,
      docToTarget: (doc) => doc.choices.label.indexOf(doc.answerKey),
      metrics: ['acc', 'acc_norm'],
      fewshot: { sampler: 'default', drawsExtra: false },
      lmEval: {
        tag: 'ai2_arc',
        datasetPath: 'allenai/ai2_arc',
        datasetName: config,
        splits: { training_split: 'train', validation_split: 'validation', test_split: 'test' },
        docToText: 'Question: {{question}}\nAnswer:',
        docToTarget: '{{choices.label.index(answerKey)}}',
        docToChoice: '{{choices.text}}',
        shouldDecontaminate: true,
      },
    },
    evaluatedSplit: 'test',
    fewshotSplit: 'train',
    data: {
      // Both the release (ARC-V1-Feb2018-2/ARC-Easy/…) and the hub (ai2_arc/ARC-Easy/…) keep a config in this folder.
      folder: config,
      label: name,
      hubRepos: ['allenai/ai2_arc', 'ai2_arc'],
      release: {
        description: `the release (ARC-V1-Feb2018-2), ${config}/${releaseFile('Test')} (${releaseFile('Train')} beside it for few-shot)`,
        files: { test: [releaseFile('Test')], validation: [releaseFile('Dev')], train: [releaseFile('Train')] },
        parse: jsonlParser(releaseRow, (row) =>
          checked({
            id: row.id,
            question: row.question.stem,
            choices: { text: row.question.choices.map((choice) => choice.text), label: row.question.choices.map((choice) => choice.label) },
            answerKey: row.answerKey,
          }),
        ),
      },
      hub: {
        description: `the Hugging Face hub's allenai/ai2_arc parquet, ${config}/test-00000-of-00001.parquet (train beside it for few-shot)`,
        // '' when --data names the hub download (whose ARC-Easy folder is then this folder), the config in a hub cache.
        configs: ['', config],
        parse: parquetParser(hubShape, checked),
      },
    },
  };
}

export const arcEasy = arcTask('arc_easy', 'ARC-Easy');
export const arcChallenge = arcTask('arc_challenge', 'ARC-Challenge');
