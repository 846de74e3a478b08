/**
 * SuperGLUE fixtures in the official release layout (`<Task>/val.jsonl`), written by code: a few rows per task
 * that reach the edge cases (astral characters before spans, a WSC span that needs the builder's fix, a
 * MultiRC answer with a backslash, ReCoRD's inclusive entity ends and repeated entities). `labels: 'strings'`
 * writes BoolQ/WiC/WSC labels as "true"/"false", the variant in shared/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from './temp-dirs.js';

type Row = Record<string, unknown>;
export type LabelStyle = 'booleans' | 'strings';

const flag = (value: boolean, style: LabelStyle): boolean | string => (style === 'booleans' ? value : String(value));

/** ReCoRD: entity spans are [start, end] with an inclusive end, counted in code points. */
const RECORD_PASSAGE = '😀 Alice met Bob in Paris. Alice waved.\n@highlight\nBob left Paris\n@highlight\nAlice stayed';
const span = (text: string, from = 0): { start: number; end: number } => {
  const codePoints = Array.from(RECORD_PASSAGE);
  for (let start = from; start < codePoints.length; start += 1) {
    if (codePoints.slice(start, start + Array.from(text).length).join('') === text) return { start, end: start + Array.from(text).length - 1 };
  }
  throw new Error(`no ${text} in the passage`);
};

export function superGlueRows(style: LabelStyle): Record<string, Row[]> {
  return {
    BoolQ: [
      { question: 'is the sky blue', passage: 'Sky -- The sky is blue.', idx: 0, label: flag(true, style) },
      { question: 'is grass red', passage: 'Grass -- Grass is green.', idx: 1, label: flag(false, style) },
    ],
    CB: [
      { premise: 'It rained all day.', hypothesis: 'the ground is wet', label: 'entailment', idx: 0 },
      { premise: 'Maybe he came.', hypothesis: 'he came', label: 'neutral', idx: 1 },
      { premise: 'He never came.', hypothesis: 'he came', label: 'contradiction', idx: 2 },
    ],
    COPA: [
      { premise: ' The man fell. ', choice1: 'He slipped on ice.', choice2: 'Ümit laughed.', question: 'cause', label: 0, idx: 0 },
      { premise: 'I was hungry.', choice1: 'I slept.', choice2: 'I ate.', question: 'effect', label: 1, idx: 1 },
    ],
    MultiRC: [
      {
        idx: 0,
        version: 1.1,
        passage: {
          text: 'Files live in C:\\temp. Tom reads them.',
          questions: [
            {
              question: 'Where do files live?',
              idx: 0,
              answers: [
                { text: 'C:\\temp', idx: 0, label: 1 },
                { text: 'Nowhere', idx: 1, label: 0 },
              ],
            },
          ],
        },
      },
    ],
    ReCoRD: [
      {
        source: 'fixture',
        idx: 0,
        passage: { text: RECORD_PASSAGE, entities: [span('Alice'), span('Bob'), span('Paris'), span('Alice', 20), span('😀')] },
        qas: [
          {
            id: 'q0',
            idx: 0,
            query: '@placeholder said goodbye to Bob.',
            answers: [
              { start: 2, end: 6, text: 'Alice' },
              { start: 27, end: 31, text: 'Alice' },
            ],
          },
          { id: 'q1', idx: 1, query: 'They met in @placeholder.', answers: [{ start: 19, end: 23, text: 'Paris' }] },
        ],
      },
    ],
    RTE: [
      { premise: 'Ann owns a cat.', hypothesis: 'Ann has a pet.', label: 'entailment', idx: 0 },
      { premise: 'Ann owns a cat.', hypothesis: 'Ann has a dog.', label: 'not_entailment', idx: 1 },
    ],
    WiC: [
      {
        word: 'bank',
        sentence1: '😀 bank on it.',
        sentence2: 'The river bank.',
        idx: 0,
        label: flag(false, style),
        start1: 2,
        end1: 6,
        start2: 10,
        end2: 14,
        version: 1.1,
      },
    ],
    WSC: [
      {
        text: "The table wo n't fit through the doorway because it is too wide .",
        target: { span1_index: 0, span1_text: 'The table.', span2_index: 9, span2_text: 'it' },
        idx: 0,
        label: flag(true, style),
      },
    ],
  };
}

/** Writes `val.jsonl` (and `train.jsonl` where asked) per task folder; returns the root. */
export function writeSuperGlueFixture(options: { style?: LabelStyle; folders?: readonly string[]; train?: readonly string[] } = {}): string {
  const root = makeTempDir('superglue');
  const rows = superGlueRows(options.style ?? 'booleans');
  for (const [folder, taskRows] of Object.entries(rows)) {
    if (options.folders !== undefined && !options.folders.includes(folder)) continue;
    mkdirSync(path.join(root, folder));
    const lines = `${taskRows.map((row) => JSON.stringify(row)).join('\n')}\n`;
    writeFileSync(path.join(root, folder, 'val.jsonl'), lines);
    if (options.train?.includes(folder)) writeFileSync(path.join(root, folder, 'train.jsonl'), lines);
  }
  return root;
}
