/**
 * Where each kind of task (lm-eval's output_type; src/tasks/types.ts `Task`) meets the evaluator. Everything the
 * evaluator, the results and the shard merge do differently per kind goes through the functions here, each a
 * switch over `task.kind` that the compiler checks is exhaustive; nothing anywhere is keyed on a task's name.
 *
 * A kind supplies:
 *   requests       lm-eval's Instances for a task, in document order (samples show them, shards digest them)
 *   scoring        those requests as the scoring path's units: text pairs it tokenizes, or token windows
 *   metrics        documents' outcomes (their summed log-likelihoods per result) → the task's metrics
 *   samples        --log-samples records
 *   config         the results' `configs` entry
 *   results/doc    how many log-likelihoods each document has (a shard's outcomes are checked against it)
 * A new kind adds its task type to the `Task` union, a member to `TaskRequests`, and one case to each switch
 * below; the compiler lists every place that lacks it. generate_until has no scoring units: its documents are
 * answered by the generation route (src/run/generation-route.ts), and its outcomes carry the generated texts.
 */
import { MlrbError } from '../errors.js';
import type { GenerationKwargs } from '../tasks/generate-until-types.js';
import type { MetricName, Task } from '../tasks/types.js';
import type { ScoringRequest, TaskRequests } from './instance.js';
import { computeTaskMetrics, type DocOutcome, type TaskMetrics } from './metrics.js';
import type { EncodingRules } from './request-encoding.js';
import type { TaskConfigDump } from './result-types.js';
import { buildRollingRequests, buildRollingSamples, computeRollingMetrics, isPerplexityMetric, rollingWindowRequests } from './rolling-task.js';
import { buildTaskSamples, type LoggedSample } from './samples.js';
import { buildGenerateUntilRequests } from './generate-until/requests.js';
import { generateUntilConfig } from './generate-until/results.js';
import { generateUntilLoggedSamples, generateUntilOutcomeProblem, generateUntilTaskMetrics } from './generate-until/task-kind.js';
import { multipleChoiceConfig, rollingConfig } from './task-configs.js';
import { buildTaskRequests } from './task-requests.js';

function unknownKind(kind: never): never {
  throw new MlrbError('INTERNAL', `no rules for tasks of kind ${String(kind)}`);
}

function mismatch(task: Task, requests: TaskRequests): MlrbError {
  return new MlrbError('INTERNAL', `task ${task.name} is ${task.kind} but its requests are ${requests.kind}`, { task: task.name });
}

export function requestsForTask(task: Task): TaskRequests {
  switch (task.kind) {
    case 'multiple_choice':
      return { kind: task.kind, requests: buildTaskRequests(task) };
    case 'loglikelihood_rolling':
      return { kind: task.kind, requests: buildRollingRequests(task) };
    case 'generate_until':
      return { kind: task.kind, requests: buildGenerateUntilRequests(task) };
    default:
      return unknownKind(task);
  }
}

/** What turning requests into scoring units may need from the loaded model: lm-eval's encoding rules and context. */
export interface ScoringContext {
  /** Built on first use, so a run with no rolling task never needs the prefix token. */
  readonly rules: () => EncodingRules;
  readonly maxLength: number;
}

/** The requests, restricted to the documents `keep` accepts, as the scoring path takes them (generate_until: none). */
export function scoringRequests(requests: TaskRequests, keep: (docId: number) => boolean, context: ScoringContext): ScoringRequest[] {
  switch (requests.kind) {
    case 'multiple_choice':
      return requests.requests.filter((request) => keep(request.docId));
    case 'loglikelihood_rolling':
      return rollingWindowRequests(
        requests.requests.filter((request) => keep(request.docId)),
        context.rules(),
        context.maxLength,
      );
    case 'generate_until':
      return [];
    default:
      return unknownKind(requests);
  }
}

/** The requests' identities, one line per request, for a shard's requests digest. */
export function requestIdentities(requests: TaskRequests, keep: (docId: number) => boolean): string[] {
  switch (requests.kind) {
    case 'multiple_choice':
      return requests.requests
        .filter((request) => keep(request.docId))
        .map((request) => JSON.stringify([request.docId, request.choiceIndex, request.context, request.continuation]));
    case 'loglikelihood_rolling':
      return requests.requests.filter((request) => keep(request.docId)).map((request) => JSON.stringify([request.docId, request.text]));
    case 'generate_until':
      return requests.requests
        .filter((request) => keep(request.docId))
        .map((request) => JSON.stringify([request.docId, request.context, generationKwargsIdentity(request.generationKwargs)]));
    default:
      return unknownKind(requests);
  }
}

export function taskMetricsFor(task: Task, outcomes: readonly DocOutcome[]): TaskMetrics {
  switch (task.kind) {
    case 'multiple_choice':
      return computeTaskMetrics(task, outcomes);
    case 'loglikelihood_rolling':
      return computeRollingMetrics(task, outcomes);
    case 'generate_until':
      return generateUntilTaskMetrics(task, outcomes);
    default:
      return unknownKind(task);
  }
}

export function samplesFor(task: Task, requests: TaskRequests, metrics: TaskMetrics): LoggedSample[] {
  switch (task.kind) {
    case 'multiple_choice':
      if (requests.kind !== task.kind) throw mismatch(task, requests);
      return buildTaskSamples(task, requests.requests, metrics);
    case 'loglikelihood_rolling':
      if (requests.kind !== task.kind) throw mismatch(task, requests);
      return buildRollingSamples(task, requests.requests, metrics);
    case 'generate_until':
      if (requests.kind !== task.kind) throw mismatch(task, requests);
      return generateUntilLoggedSamples(task, requests.requests, metrics);
    default:
      return unknownKind(task);
  }
}

export function taskConfigFor(task: Task): TaskConfigDump {
  switch (task.kind) {
    case 'multiple_choice':
      return multipleChoiceConfig(task);
    case 'loglikelihood_rolling':
      return rollingConfig(task);
    case 'generate_until':
      return generateUntilConfig(task);
    default:
      return unknownKind(task);
  }
}

/**
 * Log-likelihoods per document: one per choice, one for a rolling document (its windows add up to it), none for
 * a generate_until document (its outcome is its generated text).
 */
export function resultsPerDocument(task: Task): Map<number, number> {
  switch (task.kind) {
    case 'multiple_choice':
      return new Map(task.docs.map((doc) => [doc.docId, doc.choices.length]));
    case 'loglikelihood_rolling':
      return new Map(task.docs.map((doc) => [doc.docId, 1]));
    case 'generate_until':
      return new Map(task.docs.map((doc) => [doc.docId, 0]));
    default:
      return unknownKind(task);
  }
}

/** What is wrong with a shard document's outcome for its task's kind, or undefined when it has the right shape. */
export function outcomeShapeProblem(task: Task, outcome: DocOutcome): string | undefined {
  switch (task.kind) {
    case 'multiple_choice':
    case 'loglikelihood_rolling': {
      const expected = resultsPerDocument(task).get(outcome.docId) ?? 0;
      if (outcome.logliks.length === expected && outcome.isGreedy.length === expected && outcome.responses === undefined) return undefined;
      return `document ${outcome.docId} has ${outcome.logliks.length} log-likelihoods and ${outcome.isGreedy.length} greedy flags for ${expected} choices`;
    }
    case 'generate_until':
      return generateUntilOutcomeProblem(outcome);
    default:
      return unknownKind(task);
  }
}

/** The task with only the documents `keep` accepts; totalDocs keeps the split's size (n-samples "original"). */
export function keepDocuments(task: Task, keep: (docId: number) => boolean): Task {
  const totalDocs = task.totalDocs ?? task.docs.length;
  switch (task.kind) {
    case 'multiple_choice':
      return { ...task, docs: task.docs.filter((doc) => keep(doc.docId)), totalDocs };
    case 'loglikelihood_rolling':
      return { ...task, docs: task.docs.filter((doc) => keep(doc.docId)), totalDocs };
    case 'generate_until':
      return { ...task, docs: task.docs.filter((doc) => keep(doc.docId)), totalDocs };
    default:
      return unknownKind(task);
  }
}

/** lm-eval's n-shot: a rolling task never has examples. */
export function numFewshotOf(task: Task): number {
  switch (task.kind) {
    case 'multiple_choice':
      return task.numFewshot ?? 0;
    case 'loglikelihood_rolling':
      return 0;
    case 'generate_until':
      return task.numFewshot;
    default:
      return unknownKind(task);
  }
}

/** The metric names a task reports (a generate_until task reports its one metric once per filter). */
export function metricNamesOf(task: Task): readonly MetricName[] {
  switch (task.kind) {
    case 'multiple_choice':
    case 'loglikelihood_rolling':
      return task.metrics;
    case 'generate_until':
      return [task.metric.name];
    default:
      return unknownKind(task);
  }
}

/** A request's generation kwargs in a fixed key order, for the requests digest. */
function generationKwargsIdentity(kwargs: GenerationKwargs): readonly unknown[] {
  return [kwargs.until, kwargs.doSample, kwargs.temperature, kwargs.maxGenToks ?? null];
}

/** lm-eval's higher_is_better per metric: false for the perplexity metrics, true for the rest. */
export function isHigherBetter(metric: MetricName): boolean {
  return !isPerplexityMetric(metric);
}
