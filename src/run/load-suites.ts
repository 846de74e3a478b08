/**
 * `--suite a,b` / `--tasks a,b` → the suites to score: lm-eval's task, group and tag names
 * (src/tasks/task-names.ts), each suite loaded once with the same data folder, limit and few-shot count (a suite
 * whose lm-eval config pins num_fewshot to 0 ignores it, as lm-eval does). A task may appear once:
 * `superglue,boolq` is refused. evaluate() and the shard merge load through here, so both see the same tasks.
 */
import { loadSuite } from '../tasks/registry.js';
import { applySelection, resolveTaskNames, type SuiteSelection } from '../tasks/task-names.js';
import type { Suite } from '../tasks/types.js';

export interface SuitesToLoad {
  readonly suite: string;
  readonly dataDir: string;
  /** Absent: each task's own default (lm-eval's YAML num_fewshot; gsm8k 5, the rest 0). */
  readonly numFewshot?: number | undefined;
  readonly allowPartial: boolean;
  readonly limit?: number | undefined;
}

export type CommonLoadOptions = { readonly dataDir: string; readonly numFewshot?: number; readonly allowPartial: boolean; readonly limit?: number };

export async function loadSuites(options: SuitesToLoad): Promise<Suite[]> {
  const selections = resolveTaskNames(options.suite);
  const common: CommonLoadOptions = {
    dataDir: options.dataDir,
    ...(options.numFewshot !== undefined ? { numFewshot: options.numFewshot } : {}),
    allowPartial: options.allowPartial,
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
  };
  const suites = await Promise.all(selections.map(async (selection) => applySelection(await loadSelection(selection, common), selection)));
  const owners = new Map<string, string>();
  for (const suite of suites) {
    for (const task of suite.tasks) {
      const owner = owners.get(task.name);
      if (owner !== undefined) throw new RangeError(`task ${task.name} is in both --suite ${owner} and ${suite.name}; name it once`);
      owners.set(task.name, suite.name);
    }
  }
  return suites;
}

export function loadSelection(selection: SuiteSelection, common: CommonLoadOptions): Promise<Suite> {
  if (selection.suite === 'mmlu') return loadSuite('mmlu', { ...common, ...(selection.subjects ? { subjects: selection.subjects } : {}) });
  if (selection.suite === 'blimp') return loadSuite('blimp', { ...common, ...(selection.paradigms ? { paradigms: selection.paradigms } : {}) });
  return loadSuite(selection.suite, common);
}
