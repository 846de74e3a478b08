/**
 * ReCoRD as the Hugging Face builder yields it (one document per query: passage text, the sorted set of entity
 * strings cut from the passage by their inclusive [start, end] spans, the sorted set of answer texts) and as
 * lm-eval's `record` task prompts it:
 *   text    = passage.strip() split on "\n@highlight\n": the first part + "\n\n", then "  - {highlight}.\n" each
 *   choices = "  - {query}" with every "@placeholder" replaced by the entity, one per entity, each scored after
 *             the default target delimiter " " (the YAML sets none), so a continuation starts with three spaces
 *   target  = the same with the first sorted answer
 * Scoring picks the entity with the highest log-likelihood and keeps the best SQuAD em / f1 over the answers.
 */
import { z } from 'zod';
import { comparePythonStrings, pythonSlice, pythonStrip } from '../../text/python-text.js';
import { badRow, type NumberedRow } from '../jsonl.js';

export interface RecordDoc {
  readonly [field: string]: unknown;
  readonly passage: string;
  readonly query: string;
  readonly entities: readonly string[];
  readonly answers: readonly string[];
  readonly idx: { readonly passage: number; readonly query: number };
  /** Every entity span (text, start, exclusive end), as the builder yields them; kept for the logged document. */
  readonly entity_spans?: { readonly text: readonly string[]; readonly start: readonly number[]; readonly end: readonly number[] };
}

const span = z.looseObject({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() });
export const recordRowSchema = z.looseObject({
  idx: z.number().int(),
  passage: z.looseObject({ text: z.string(), entities: z.array(span) }),
  qas: z.array(
    z.looseObject({
      idx: z.number().int(),
      query: z.string(),
      answers: z.array(z.looseObject({ text: z.string() })).optional(),
    }),
  ),
});

/**
 * One document per query, in file order. Every query must have an entity to score and (in a labelled split) an
 * answer: lm-eval fails on either being empty.
 */
export function recordDocs(rows: readonly NumberedRow<z.output<typeof recordRowSchema>>[], file: string): RecordDoc[] {
  return rows.flatMap(({ row, line }) => {
    // The builder's _get_record_entities: spans sorted by start (stable), each end made exclusive.
    const spans = row.passage.entities
      .map(({ start, end }) => ({ text: pythonSlice(row.passage.text, start, end + 1), start, end: end + 1 }))
      .sort((a, b) => a.start - b.start);
    const entities = sortedUnique(spans.map((span) => span.text));
    if (entities.length === 0) badRow(file, line, 'passage has no entities to choose from');
    const entitySpans = { text: spans.map((span) => span.text), start: spans.map((span) => span.start), end: spans.map((span) => span.end) };
    return row.qas.map((qa): RecordDoc => {
      const answers = sortedUnique((qa.answers ?? []).map((answer) => answer.text));
      if (answers.length === 0) badRow(file, line, `query ${qa.idx} has no answers`);
      // The builder's column order; lm-eval's document (and its logged doc_hash) keeps it.
      return { passage: row.passage.text, query: qa.query, entities, entity_spans: entitySpans, answers, idx: { passage: row.idx, query: qa.idx } };
    });
  });
}

export function recordDocToText(doc: RecordDoc): string {
  const [initial = '', ...highlights] = pythonStrip(doc.passage).split('\n@highlight\n');
  return `${initial}\n\n${highlights.map((highlight) => `  - ${highlight}.\n`).join('')}`;
}

export function formatRecordAnswer(query: string, entity: string): string {
  return `  - ${query}`.replaceAll('@placeholder', () => entity);
}

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort(comparePythonStrings);
}
