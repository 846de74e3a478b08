/**
 * Prompts and metrics held to lm-eval's own: test/fixtures/lm-eval/task-requests.json holds what lm-eval 0.4.13
 * built from the repo's hub fixtures (scripts/lm_eval/task_requests.py ran its ConfigurableTask on the task YAMLs
 * and utils): every (context, continuation) of every document, 0-shot and few-shot, and the acc / acc_norm its
 * process_results gave for fixed log-likelihoods. Each spec's kept Jinja strings are checked against the YAML's,
 * so the one prompt a spec builds and the template it reports cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeTaskMetrics } from '../../src/eval/metrics.js';
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import { isSuiteName, loadSuite } from '../../src/tasks/registry.js';
import { isMultipleChoice, type MultipleChoiceTask } from '../../src/tasks/types.js';
import { repoRoot } from '../support/shared-data.js';

interface RecordedCase {
  readonly suite: string;
  readonly dataDir: string;
  readonly task: string;
  readonly numFewshot: number;
  readonly version: number;
  readonly templates: { readonly doc_to_text: unknown; readonly doc_to_target: unknown; readonly doc_to_choice: unknown };
  readonly docs: readonly {
    readonly doc_id: number;
    readonly arguments: readonly (readonly [string, string])[];
    readonly logliks: readonly number[];
    readonly metrics: Readonly<Record<string, number>>;
  }[];
}

const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lm-eval/task-requests.json'), 'utf8')) as {
  readonly cases: readonly RecordedCase[];
};

async function loadTask(recordedCase: RecordedCase): Promise<MultipleChoiceTask> {
  if (!isSuiteName(recordedCase.suite)) throw new Error(`not a suite: ${recordedCase.suite}`);
  const suite = await loadSuite(recordedCase.suite, {
    dataDir: path.join(repoRoot, recordedCase.dataDir),
    numFewshot: recordedCase.numFewshot,
    allowPartial: true,
  });
  const task = suite.tasks.find((candidate) => candidate.name === recordedCase.task);
  if (task === undefined || !isMultipleChoice(task)) throw new Error(`${recordedCase.suite} has no multiple-choice task ${recordedCase.task}`);
  return task;
}

describe('requests and metrics as lm-eval builds them from the same rows', () => {
  it('covers every new suite and the template-driven old ones', () => {
    expect(new Set(recorded.cases.map((recordedCase) => recordedCase.task))).toEqual(
      new Set([
        'hellaswag',
        'arc_easy',
        'arc_challenge',
        'piqa',
        'winogrande',
        'ewok_agent-properties_filtered',
        'mmlu_anatomy',
        'blimp_adjunct_island',
        'boolq',
        'cb',
        'sglue_rte',
        'wic',
      ]),
    );
  });

  for (const recordedCase of recorded.cases) {
    const label = `${recordedCase.task}, ${recordedCase.numFewshot}-shot`;

    it(`${label}: every (context, continuation), in document and choice order`, async () => {
      const task = await loadTask(recordedCase);
      const requests = buildTaskRequests(task);
      const byDoc = recordedCase.docs.map((doc) =>
        requests.filter((request) => request.docId === doc.doc_id).map((request) => [request.context, request.continuation]),
      );
      expect(byDoc).toEqual(recordedCase.docs.map((doc) => doc.arguments));
      expect(requests).toHaveLength(recordedCase.docs.reduce((sum, doc) => sum + doc.arguments.length, 0));
    });

    it(`${label}: acc and acc_norm per document from the same log-likelihoods`, async () => {
      const task = await loadTask(recordedCase);
      const outcomes = recordedCase.docs.map((doc) => ({ docId: doc.doc_id, logliks: doc.logliks, isGreedy: doc.logliks.map(() => false) }));
      const metrics = computeTaskMetrics(task, outcomes);
      for (const [index, doc] of recordedCase.docs.entries()) {
        for (const [metric, value] of Object.entries(doc.metrics)) expect(metrics.docs[index]?.values[metric as 'acc' | 'acc_norm']).toBe(value);
      }
    });

    it(`${label}: the spec reports the YAML's doc_to_text, doc_to_target, doc_to_choice and version`, async () => {
      const task = await loadTask(recordedCase);
      expect(task.version).toBe(recordedCase.version);
      const facts = task.lmEval;
      expect({ doc_to_text: facts?.docToText, doc_to_target: facts?.docToTarget, doc_to_choice: facts?.docToChoice }).toEqual(recordedCase.templates);
    });
  }
});
