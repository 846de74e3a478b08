/**
 * A BabyLM 2024 `evaluation_data` folder written by code: blimp_filtered/ and supplement_filtered/ with a few
 * minimal pairs per subtask, of different sizes (the filtered files are uneven, so macro and micro means differ).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from './temp-dirs.js';

type Pair = { sentence_good: string; sentence_bad: string; [field: string]: unknown };

export const BABYLM_PAIRS: Readonly<Record<string, Readonly<Record<string, readonly Pair[]>>>> = {
  blimp_filtered: {
    anaphor_gender_agreement: [
      {
        sentence_good: 'Katherine can help herself.',
        sentence_bad: 'Katherine can help himself.',
        field: 'morphology',
        UID: 'anaphor_gender_agreement',
        pairID: '0',
      },
      { sentence_good: 'Tom saw himself.', sentence_bad: 'Tom saw herself.', field: 'morphology', UID: 'anaphor_gender_agreement', pairID: '1' },
      { sentence_good: 'Mary hurt herself.', sentence_bad: 'Mary hurt itself.', field: 'morphology', UID: 'anaphor_gender_agreement', pairID: '2' },
    ],
    determiner_noun_agreement_1: [
      {
        sentence_good: 'Raymond is selling this sketch.',
        sentence_bad: 'Raymond is selling this sketches.',
        field: 'morphology',
        UID: 'determiner_noun_agreement_1',
        pairID: '0',
      },
    ],
  },
  supplement_filtered: {
    hypernym: [
      { sentence_good: 'A dog is an animal.', sentence_bad: 'An animal is a dog.', UID: 'hypernym' },
      { sentence_good: 'A rose is a flower.', sentence_bad: 'A flower is a rose.', UID: 'hypernym' },
    ],
    qa_congruence_easy: [{ sentence_good: 'A: What did you eat?\nB: Pizza.', sentence_bad: 'A: What did you eat?\nB: Yesterday.', UID: 'qa_congruence_easy' }],
  },
};

/** Returns the evaluation_data folder. */
export function writeBabyLmFixture(): string {
  const root = path.join(makeTempDir('babylm'), 'evaluation_data');
  for (const [folder, subtasks] of Object.entries(BABYLM_PAIRS)) {
    mkdirSync(path.join(root, folder), { recursive: true });
    for (const [subtask, pairs] of Object.entries(subtasks)) {
      writeFileSync(path.join(root, folder, `${subtask}.jsonl`), `${pairs.map((pair) => JSON.stringify(pair)).join('\n')}\n`);
    }
  }
  return root;
}
