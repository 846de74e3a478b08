/**
 * Prompt templates with named placeholders: `{informal_statement}` is replaced by the problem's field, `{{`
 * and `}}` stand for literal braces (Lean text is full of them). Values are inserted once and never expanded
 * again, so a statement that contains `{name}` stays as written. A template is checked when it is parsed:
 * an unknown placeholder or a stray brace is a RangeError before any generation starts.
 *
 * MLRB gives no prompt for autoformalization; the nearest it has is agent-eval's BLEU benchmark
 * ("Problem: <informal_statement>\nSolution:"). The default keeps that form and adds what the task gives the
 * model (the informal proof) and what it asks for (the Lean 3 statement and proof).
 */
import { PROBLEM_FIELDS, type MathProblem, type ProblemField } from './problems.js';

export const DEFAULT_PROMPT_TEMPLATE = 'Problem: {informal_statement}\nInformal proof: {informal_proof}\nFormal statement and proof in Lean 3:\n';

/** Fields a template may name: the reference (formal_proof) is left out, or the prompt would hold the answer. */
export const TEMPLATE_FIELDS: readonly ProblemField[] = PROBLEM_FIELDS.filter((field) => field !== 'formal_proof');

type Piece = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'field'; readonly field: ProblemField };

export interface PromptTemplate {
  readonly source: string;
  render(problem: MathProblem): string;
}

const PLACEHOLDER = /\{\{|\}\}|\{([^{}]*)\}|[{}]/gu;

export function parsePromptTemplate(source: string): PromptTemplate {
  const pieces: Piece[] = [];
  let text = '';
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    text += source.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === '{{' || match[0] === '}}') {
      text += match[0][0];
      continue;
    }
    const name = match[1];
    if (name === undefined) throw new RangeError(`prompt template: a lone "${match[0]}" at character ${match.index}; write {{ or }} for a literal brace`);
    const field = TEMPLATE_FIELDS.find((candidate) => candidate === name);
    if (field === undefined) {
      throw new RangeError(
        `prompt template: unknown placeholder {${name}} at character ${match.index}; known: ${TEMPLATE_FIELDS.map((f) => `{${f}}`).join(', ')}`,
      );
    }
    if (text !== '') pieces.push({ kind: 'text', text });
    text = '';
    pieces.push({ kind: 'field', field });
  }
  text += source.slice(last);
  if (text !== '') pieces.push({ kind: 'text', text });
  if (!pieces.some((piece) => piece.kind === 'field')) throw new RangeError('prompt template: it names no field, so every problem would get the same prompt');
  return {
    source,
    render: (problem) => pieces.map((piece) => (piece.kind === 'text' ? piece.text : problem[piece.field])).join(''),
  };
}
