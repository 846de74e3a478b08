/** Problem files for scoreMathReasoning's tests: MLRB's columns, one JSON object a line, each in a fresh folder. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface MathProblemRow {
  name: string;
  informal_statement: string;
  informal_proof: string;
  formal_proof: string;
}

export function mathFolder(): string {
  return mkdtempSync(path.join(tmpdir(), 'math-reasoning-'));
}

/** The rows as problems.jsonl, then `extraLines` as they are (broken rows for the error paths). */
export function writeMathProblems(rows: readonly MathProblemRow[], extraLines = ''): string {
  const file = path.join(mathFolder(), 'problems.jsonl');
  writeFileSync(file, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n${extraLines}`);
  return file;
}
