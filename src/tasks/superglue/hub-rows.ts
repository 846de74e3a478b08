/**
 * SuperGLUE's splits as the Hugging Face hub has them (`aps/super_glue`, the rows lm-eval loads), turned into the
 * same documents the release reader (specs.ts) makes. The hub is already what the `super_glue` builder yields:
 * labels are ClassLabel indices (BoolQ/WiC/WSC/MultiRC False/True, CB entailment/contradiction/neutral, RTE
 * entailment/not_entailment, COPA choice1/choice2), MultiRC is one row per answer, ReCoRD one row per query with
 * its sorted entity and answer sets, and `wsc.fixed` carries the builder's span fix. So the rows are the
 * documents; what is checked here is what lm-eval would trip over (labels out of range, ReCoRD without entities
 * or answers, MultiRC answers its literal_eval would change). WSC is also read from the plain `wsc` config:
 * the span fix is applied on reading, and it leaves an already fixed row as it is.
 */
import { z } from 'zod';
import { badParquetRow, parquetInt, readParquetSplit } from '../parquet-rows.js';
import { parquetParser, type HubSplitParser } from '../split-source.js';
import type { TaskDocument } from '../task-spec.js';
import { multircAnswerProblem, type MultircDoc } from './multirc.js';
import type { RecordDoc } from './record.js';
import type { SuperGlueTask, boolq, cb, copa, rte, wic } from './specs.js';
import { fixWscSpans, type WscDoc } from './wsc.js';

type DocOf<Task> = Task extends SuperGlueTask<infer Doc> ? Doc : never;

export interface HubSplitReader<Doc extends TaskDocument> {
  /** Hub config folders, preferred first. */
  readonly configs: readonly string[];
  /** Every row of the split's shards as documents; BAD_DATA naming the shard and row otherwise. */
  readonly read: HubSplitParser<Doc>;
}

const text = z.string();
const int = parquetInt;
/** ClassLabel(names=["False", "True"]) and COPA's (choice1, choice2): 0 or 1. */
const binaryLabel = (names: string) => parquetInt.pipe(z.union([z.literal(0), z.literal(1)], { error: `label must be 0 or 1 (${names})` }));
const label = (count: number) =>
  parquetInt.pipe(
    z
      .number()
      .min(0, `label must be 0-${count - 1}`)
      .max(count - 1, `label must be 0-${count - 1}`),
  );

/** Tasks whose hub rows are their documents as they are. */
function plainReader<Shape extends z.ZodRawShape>(configs: readonly string[], shape: Shape): HubSplitReader<z.output<z.ZodObject<Shape>>> {
  return { configs, read: parquetParser(shape, (row) => row) };
}

const boolqReader: HubSplitReader<DocOf<typeof boolq>> = plainReader(['boolq'], { question: text, passage: text, idx: int, label: binaryLabel('False, True') });
const cbReader: HubSplitReader<DocOf<typeof cb>> = plainReader(['cb'], { premise: text, hypothesis: text, idx: int, label: label(3) });
const copaReader: HubSplitReader<DocOf<typeof copa>> = plainReader(['copa'], {
  premise: text,
  choice1: text,
  choice2: text,
  question: z.enum(['cause', 'effect']),
  idx: int,
  label: binaryLabel('choice1, choice2'),
});
const rteReader: HubSplitReader<DocOf<typeof rte>> = plainReader(['rte'], { premise: text, hypothesis: text, idx: int, label: label(2) });
const index = parquetInt.pipe(z.number().nonnegative());
const wicReader: HubSplitReader<DocOf<typeof wic>> = plainReader(['wic'], {
  word: text,
  sentence1: text,
  sentence2: text,
  start1: index,
  start2: index,
  end1: index,
  end2: index,
  idx: int,
  label: binaryLabel('False, True'),
});

const multircShape = {
  paragraph: text,
  question: text,
  answer: text,
  idx: z.object({ paragraph: int, question: int, answer: int }),
  label: label(2),
};
const multircReader: HubSplitReader<MultircDoc> = {
  configs: ['multirc'],
  read: async (shards, root, what) =>
    (await readParquetSplit(shards, { root, what, shape: multircShape })).map((row) => {
      const problem = multircAnswerProblem(row.row.answer);
      if (problem !== undefined) throw badParquetRow(row, `column "answer": ${problem}`);
      return row.row;
    }),
};

/** entity_spans is not read by the task, but lm-eval's document (and so its logged sample) keeps it. */
const entitySpans = z.object({ text: z.array(text), start: z.array(int), end: z.array(int) });
const recordShape = {
  passage: text,
  query: text,
  entities: z.array(text),
  entity_spans: entitySpans.optional(),
  answers: z.array(text),
  idx: z.object({ passage: int, query: int }),
};
const recordReader: HubSplitReader<RecordDoc> = {
  configs: ['record'],
  read: async (shards, root, what) =>
    (await readParquetSplit(shards, { root, what, shape: recordShape })).map((row) => {
      // lm-eval fails on a query with nothing to choose from or no answer to score against.
      if (row.row.entities.length === 0) throw badParquetRow(row, 'column "entities": the passage has no entities to choose from');
      if (row.row.answers.length === 0) throw badParquetRow(row, 'column "answers": the query has no answers');
      return row.row;
    }),
};

const wscShape = { text, span1_index: index, span2_index: index, span1_text: text, span2_text: text, idx: int, label: label(2) };
const wscReader: HubSplitReader<WscDoc> = {
  configs: ['wsc.fixed', 'wsc'],
  read: async (shards, root, what) =>
    (await readParquetSplit(shards, { root, what, shape: wscShape })).map((row) => {
      const fixed = fixWscSpans(row.row);
      if (typeof fixed === 'string') throw badParquetRow(row, fixed);
      return fixed;
    }),
};

/** Keyed by lm-eval task name. */
export const SUPERGLUE_HUB_READERS = {
  boolq: boolqReader,
  cb: cbReader,
  copa: copaReader,
  multirc: multircReader,
  record: recordReader,
  sglue_rte: rteReader,
  wic: wicReader,
  wsc: wscReader,
} as const;
