/**
 * lm-eval's generate_until requests for a task (ConfigurableTask.construct_requests with output_type
 * generate_until): one per document, arguments (context, generation_kwargs), where
 *   context = description + few-shot blocks + doc_to_text(doc)
 *   block   = doc_to_text(example) + target_delimiter + doc_to_target(example) + fewshot_delimiter
 * with no target delimiter after the document's own text (lm-eval 0.4.13's build_qa_turn adds it only before an
 * answer; 0.4.4–0.4.8's fewshot_context appends doc_to_text as is). Examples are drawn per document, in
 * document order, by lm-eval's sampler (src/tasks/fewshot/sampler.ts).
 */
import { createFewshotDraw } from '../../tasks/fewshot/sampler.js';
import type { GenerateUntilDoc, GenerateUntilTask, GenerationKwargs } from '../../tasks/generate-until-types.js';

export interface GenerateUntilRequest {
  readonly taskName: string;
  readonly docId: number;
  readonly context: string;
  readonly generationKwargs: GenerationKwargs;
}

export function buildGenerateUntilRequests(task: GenerateUntilTask): GenerateUntilRequest[] {
  const drawExamples = createFewshotDraw(task.name, task.fewshot, task.numFewshot);
  return task.docs.map((doc) => ({
    taskName: task.name,
    docId: doc.docId,
    context:
      task.description +
      drawExamples(doc)
        .map((example) => fewshotBlock(task, example))
        .join('') +
      doc.text,
    generationKwargs: task.generationKwargs,
  }));
}

/** An empty target contributes nothing after the text, delimiters included (lm-eval's `a != ""` test). */
function fewshotBlock(task: GenerateUntilTask, example: GenerateUntilDoc): string {
  if (example.target === '') return example.text;
  return `${example.text}${task.targetDelimiter}${example.target}${task.fewshotDelimiter}`;
}
