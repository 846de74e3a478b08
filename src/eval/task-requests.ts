/**
 * Turns a declarative multiple-choice task into lm-eval's requests: one (context, continuation) pair per
 * choice, context = description + few-shot blocks + doc text, continuation = target delimiter + choice (for a
 * multiple-input document: context = description + few-shot blocks + choice, continuation = target delimiter +
 * the document's continuation).
 */
import { createFewshotDraw } from '../tasks/fewshot/sampler.js';
import type { MultipleChoiceDoc, MultipleChoiceTask } from '../tasks/types.js';
import type { LoglikelihoodRequest } from './instance.js';

/**
 * One few-shot block as lm-eval's sampler renders it: text, delimiter, target, fewshot delimiter. A string
 * target that is empty contributes nothing after the text, delimiters included (lm-eval's `if doc_target != ""`).
 */
function fewshotBlock(task: MultipleChoiceTask, example: MultipleChoiceDoc): string {
  const target = example.targetText ?? example.choices[example.target] ?? '';
  if (example.targetText === '') return example.text;
  return `${example.text}${task.targetDelimiter}${target}${task.fewshotDelimiter}`;
}

/**
 * What precedes every document's own text: the description and the few-shot blocks, in document order (random
 * draws depend on it).
 */
function buildTaskPrefixes(task: MultipleChoiceTask): string[] {
  const drawExamples = createFewshotDraw(task.name, task.fewshot, task.numFewshot ?? 0);
  return task.docs.map(
    (doc) =>
      task.description +
      drawExamples(doc)
        .map((example) => fewshotBlock(task, example))
        .join(''),
  );
}

/** The context string lm-eval builds for every document of the task (a multiple-input one: its gold context). */
export function buildTaskContexts(task: MultipleChoiceTask): string[] {
  const prefixes = buildTaskPrefixes(task);
  return task.docs.map((doc, docIndex) => (prefixes[docIndex] ?? '') + doc.text);
}

/**
 * One request per choice. Usually the document's context is shared and the choice is the continuation; a
 * multiple-input document (lm-eval's `ctx + choice` for each context) puts the choice in the context and scores
 * its one continuation after each.
 */
export function buildTaskRequests(task: MultipleChoiceTask): LoglikelihoodRequest[] {
  const prefixes = buildTaskPrefixes(task);
  return task.docs.flatMap((doc, docIndex) => {
    const prefix = prefixes[docIndex] ?? '';
    const { continuation } = doc;
    return doc.choices.map((choice, choiceIndex) => ({
      taskName: task.name,
      docId: doc.docId,
      choiceIndex,
      ...(continuation === undefined
        ? { context: prefix + doc.text, continuation: task.targetDelimiter + choice }
        : { context: prefix + choice, continuation: task.targetDelimiter + continuation }),
    }));
  });
}
