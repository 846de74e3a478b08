/**
 * Each kind of task's `configs` entry: the part of lm-eval's dumped TaskConfig that describes it, from the
 * task's spec and the facts lm-eval's YAML adds (LmEvalTaskFacts). Fields a kind does not use take lm-eval's
 * TaskConfig defaults, as its dump shows them.
 */
import { dirname } from 'node:path';
import type { LmEvalTaskFacts, MultipleChoiceTask, RollingLoglikelihoodTask, Task } from '../tasks/types.js';
import type { TaskConfigDump } from './result-types.js';

/** The fields every kind shares, in lm-eval's order. */
function commonFields(
  task: Task,
  facts: LmEvalTaskFacts | undefined,
): Pick<TaskConfigDump, 'task' | 'task_alias' | 'tag' | 'dataset_path' | 'dataset_name' | 'dataset_files'> {
  return {
    task: task.name,
    ...(facts?.alias !== undefined ? { task_alias: facts.alias } : {}),
    ...(facts?.tag !== undefined ? { tag: facts.tag } : {}),
    dataset_path: facts?.datasetPath ?? dirname(task.sourceFiles[0] ?? '.'),
    ...(facts?.datasetName !== undefined ? { dataset_name: facts.datasetName } : {}),
    dataset_files: task.sourceFiles,
    ...facts?.splits,
  };
}

export function multipleChoiceConfig(task: MultipleChoiceTask): TaskConfigDump {
  const facts = task.lmEval;
  return {
    ...commonFields(task, facts),
    ...(facts !== undefined ? { doc_to_text: facts.docToText, doc_to_target: facts.docToTarget } : {}),
    ...(facts?.docToChoice !== undefined ? { doc_to_choice: facts.docToChoice } : {}),
    description: task.description,
    target_delimiter: task.targetDelimiter,
    fewshot_delimiter: task.fewshotDelimiter,
    ...(task.fewshot !== undefined ? { fewshot_config: { sampler: task.fewshot.sampler } } : {}),
    num_fewshot: task.numFewshot ?? 0,
    metric_list: task.metrics.map((metric) => ({ metric, aggregation: task.aggregations?.[metric] ?? 'mean', higher_is_better: true })),
    output_type: 'multiple_choice',
    repeats: 1,
    should_decontaminate: facts?.shouldDecontaminate ?? false,
    metadata: { version: task.version },
  };
}

/** A rolling task has no prompt: no description, delimiters at lm-eval's defaults, never few-shot. */
export function rollingConfig(task: RollingLoglikelihoodTask): TaskConfigDump {
  const facts = task.lmEval;
  return {
    ...commonFields(task, facts),
    ...(facts !== undefined ? { doc_to_text: facts.docToText, doc_to_target: facts.docToTarget } : {}),
    ...(facts?.processResults !== undefined ? { process_results: facts.processResults } : {}),
    description: '',
    target_delimiter: ' ',
    fewshot_delimiter: '\n\n',
    num_fewshot: 0,
    // wikitext.yaml lists the metrics by name only; lm-eval's defaults (their aggregations, lower is better) apply.
    metric_list: task.metrics.map((metric) => ({ metric })),
    output_type: 'loglikelihood_rolling',
    repeats: 1,
    should_decontaminate: facts?.shouldDecontaminate ?? false,
    ...(facts?.decontaminationQuery !== undefined ? { doc_to_decontamination_query: facts.decontaminationQuery } : {}),
    metadata: { version: task.version },
  };
}
