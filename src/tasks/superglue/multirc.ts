/**
 * MultiRC as the Hugging Face builder flattens it (one document per answer: paragraph, question, answer, label)
 * and as lm-eval's `multirc` task prompts it. Its doc_to_choice is a Jinja template rendered to a Python list
 * literal and read back with ast.literal_eval, so the answer text passes through Python's string-escape rules:
 *   "['''{{answer}}\nIs the answer correct? yes''', '''{{answer}}\nIs the answer correct? no''']"
 * doc_to_target is the label, which puts a correct answer (label 1) on the "no" choice: lm-eval's own mapping,
 * kept so accuracies match it.
 */
import { z } from 'zod';
import type { NumberedRow } from '../jsonl.js';
import { badRow } from '../jsonl.js';
import { answerLabel } from './labels.js';

export interface MultircDoc {
  readonly [field: string]: unknown;
  readonly paragraph: string;
  readonly question: string;
  readonly answer: string;
  readonly idx: { readonly paragraph: number; readonly question: number; readonly answer: number };
  readonly label: number;
}

const answerSchema = z.looseObject({ text: z.string(), idx: z.number().int(), label: answerLabel });
const questionSchema = z.looseObject({ question: z.string(), idx: z.number().int(), answers: z.array(answerSchema) });
export const multircRowSchema = z.looseObject({
  idx: z.number().int(),
  passage: z.looseObject({ text: z.string(), questions: z.array(questionSchema) }),
});

/** The builder's _generate_examples: paragraphs → questions → answers, in file order. */
export function flattenMultircRows(rows: readonly NumberedRow<z.output<typeof multircRowSchema>>[]): MultircDoc[] {
  return rows.flatMap(({ row }) =>
    row.passage.questions.flatMap((question) =>
      question.answers.map((answer) => ({
        paragraph: row.passage.text,
        question: question.question,
        answer: answer.text,
        idx: { paragraph: row.idx, question: question.idx, answer: answer.idx },
        label: answer.label,
      })),
    ),
  );
}

/** Checks, per row, that every answer survives lm-eval's literal_eval; reports the file line otherwise. */
export function checkMultircAnswers(rows: readonly NumberedRow<z.output<typeof multircRowSchema>>[], file: string): void {
  for (const { row, line } of rows) {
    for (const question of row.passage.questions) {
      for (const answer of question.answers) {
        const problem = multircAnswerProblem(answer.text);
        if (problem !== undefined) badRow(file, line, `answer ${answer.idx}: ${problem}`);
      }
    }
  }
}

export function multircChoices(doc: MultircDoc): [string, string] {
  return [decodePythonEscapes(`${doc.answer}\\nIs the answer correct? yes`), decodePythonEscapes(`${doc.answer}\\nIs the answer correct? no`)];
}

/** Why an answer cannot pass through lm-eval's literal_eval unchanged, or undefined when it can. */
export function multircAnswerProblem(answer: string): string | undefined {
  if (answer.includes("'''")) return "contains ''' , which ends lm-eval's triple-quoted choice literal";
  if (/\\N\{/.test(answer)) return 'contains a \\N{…} escape, which lm-eval would decode by Unicode name';
  return undefined;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\n': '',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/** The escapes of a Python (non-raw) str literal; an unknown escape keeps its backslash, as Python does. */
export function decodePythonEscapes(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|[\s\S])/g, (whole, sequence: string) => {
    const simple = SIMPLE_ESCAPES[sequence];
    if (simple !== undefined) return simple;
    const head = sequence[0] ?? '';
    if (sequence.length > 1 && (head === 'x' || head === 'u' || head === 'U')) return String.fromCodePoint(Number.parseInt(sequence.slice(1), 16));
    if (/^[0-7]/.test(head)) return String.fromCodePoint(Number.parseInt(sequence, 8));
    return whole;
  });
}
