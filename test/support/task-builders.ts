/** Hand-made tasks and outcomes for metric tests. */
import type { DocOutcome } from '../../src/eval/metrics.js';
import { isMultipleChoice, type MultipleChoiceDoc, type MultipleChoiceTask, type Suite } from '../../src/tasks/types.js';

export const makeDoc = (docId: number, choices: string[], target: number): MultipleChoiceDoc => ({ docId, text: '', choices, target, source: {} });

export const makeTask = (docs: MultipleChoiceDoc[], extra: Partial<MultipleChoiceTask> = {}): MultipleChoiceTask => ({
  kind: 'multiple_choice',
  name: 'demo',
  version: 1,
  description: '',
  targetDelimiter: ' ',
  fewshotDelimiter: '\n\n',
  docs,
  metrics: ['acc'],
  tags: {},
  sourceFiles: [],
  ...extra,
});

export const makeOutcome = (docId: number, logliks: number[]): DocOutcome => ({ docId, logliks, isGreedy: logliks.map(() => false) });

/** A suite loaded by a name known only at run time, checked to hold multiple-choice tasks only. */
export function multipleChoiceSuite(suite: Suite): Suite<MultipleChoiceTask> {
  const tasks = suite.tasks.filter(isMultipleChoice);
  if (tasks.length !== suite.tasks.length) throw new Error(`suite ${suite.name} holds tasks that are not multiple-choice`);
  return { ...suite, tasks };
}
