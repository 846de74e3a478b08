/**
 * The math-reasoning problems: JSON Lines with the columns of MLRB's autoformalization set
 * (AlgorithmicResearchGroup/math_reasoning_autoformalization_track: name, informal_statement,
 * informal_proof, formal_proof). The informal statement and proof are the prompt; formal_proof (the Lean 3
 * statement and proof) is the reference. Other columns are allowed and ignored. The file is data from
 * whoever hands it over, so it is read under the data policy (regular file, size cap) and a bad row is
 * BAD_DATA naming the file and line.
 */
import path from 'node:path';
import { z } from 'zod';
import { readTextFileUnder } from '../io/text-file.js';
import { parseJsonLines } from '../tasks/jsonl.js';
import { MlrbError } from '../errors.js';

export const PROBLEM_FIELDS = ['name', 'informal_statement', 'informal_proof', 'formal_proof'] as const;
export type ProblemField = (typeof PROBLEM_FIELDS)[number];

const problemRowSchema = z.looseObject({
  name: z.string(),
  informal_statement: z.string(),
  informal_proof: z.string(),
  formal_proof: z.string(),
});

export interface MathProblem {
  readonly name: string;
  readonly informal_statement: string;
  readonly informal_proof: string;
  readonly formal_proof: string;
  /** 1-based line in the data file, for messages and the per-problem report. */
  readonly line: number;
}

/** Every problem in the file, in file order; an empty file is BAD_DATA (there would be nothing to score). */
export function readMathProblems(file: string): MathProblem[] {
  const resolved = path.resolve(file);
  const content = readTextFileUnder(resolved, { kind: 'data', root: path.dirname(resolved), what: 'math-reasoning data file' });
  const rows = parseJsonLines(content, resolved, problemRowSchema);
  if (rows.length === 0)
    throw new MlrbError('BAD_DATA', `${resolved} has no problems (expected JSON Lines with ${PROBLEM_FIELDS.join(', ')})`, { file: resolved });
  return rows.map(({ row, line }) => ({
    name: row.name,
    informal_statement: row.informal_statement,
    informal_proof: row.informal_proof,
    formal_proof: row.formal_proof,
    line,
  }));
}
