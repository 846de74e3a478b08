/** A BLiMP folder with every one of the 67 paradigms (two pairs each), so it passes for the whole of BLiMP. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BLIMP_PARADIGMS } from '../../src/tasks/blimp/paradigms.js';

const PAIRS: readonly [string, string][] = [
  ['the cat sat on the mat.', 'the cat sat the on mat.'],
  ['she saw a big red dog.', 'she saw a red big dog.'],
];

/** Writes `<paradigm>.jsonl` for each paradigm given (default: all 67) into `dir`; returns `dir`. */
export function writeFullBlimp(dir: string, paradigms: readonly string[] = BLIMP_PARADIGMS): string {
  mkdirSync(dir, { recursive: true });
  for (const paradigm of paradigms) {
    const rows = PAIRS.map(([good, bad], pair) => ({
      sentence_good: good,
      sentence_bad: bad,
      field: 'syntax',
      linguistics_term: 'toy',
      UID: paradigm,
      pairID: String(pair),
    }));
    writeFileSync(path.join(dir, `${paradigm}.jsonl`), `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
  }
  return dir;
}
