/**
 * The requests mlrb-eval scores for a suite, as the GPU scripts take them from their flags (--suite, --data,
 * --num-fewshot, --limit): one place, so dump-requests.ts and compare-providers.ts always mean the same work.
 */
import path from 'node:path';
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import type { LoglikelihoodRequest } from '../../src/eval/instance.js';
import { isSuiteName, loadSuite, type SuiteName, type SuiteOptionsByName } from '../../src/tasks/registry.js';
import { isMultipleChoice, type Suite } from '../../src/tasks/types.js';

export interface SuiteFlags {
  readonly suite: string;
  readonly data: string;
  readonly 'num-fewshot': string;
  readonly limit?: string | undefined;
}

export async function loadSuiteRequests(flags: SuiteFlags): Promise<{ suite: Suite; requests: LoglikelihoodRequest[] }> {
  if (!isSuiteName(flags.suite)) throw new RangeError(`unknown suite ${flags.suite}`);
  const options: SuiteOptionsByName[SuiteName] = {
    dataDir: path.resolve(flags.data),
    numFewshot: Number(flags['num-fewshot']),
    ...(flags.limit !== undefined ? { limit: Number(flags.limit) } : {}),
  };
  const suite: Suite = await loadSuite(flags.suite, options);
  return { suite, requests: suite.tasks.filter(isMultipleChoice).flatMap((task) => buildTaskRequests(task)) };
}
