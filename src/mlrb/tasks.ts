/**
 * MLRB's seven tasks by name, each with its full and mini_ variant (src/mlrb/definitions/: what each of MLRB's
 * sources runs, which one a run follows, what we run and every deliberate difference). `mini_<task>` is its own
 * evaluation: every mini prompt runs `agent-eval --task mini_X` alone, the four model metrics.
 */
import { babylm } from './definitions/babylm.js';
import { edgeLlmCompression } from './definitions/edge-llm-compression.js';
import { edgeLlmTraining } from './definitions/edge-llm-training.js';
import { llmEfficiency } from './definitions/llm-efficiency.js';
import { llmMerging } from './definitions/llm-merging.js';
import { mathReasoning } from './definitions/math-reasoning.js';
import { minipile } from './definitions/minipile.js';
import type { MlrbTaskDefinition, VariantDefinition } from './task-definition.js';
import { closestNames, didYouMean } from '../text/closest-names.js';

export type { EligibilityRule, HeadlineRule, MlrbTaskDefinition, TaskSuite, VariantDefinition } from './task-definition.js';

/** The seven tasks, by the names this tool uses (MLRB's own spellings are aliases, below). */
export const MLRB_TASK_NAMES = ['minipile', 'babylm', 'llm_efficiency', 'llm_merging', 'edge_llm_compression', 'edge_llm_training', 'math_reasoning'] as const;
export type MlrbTaskName = (typeof MLRB_TASK_NAMES)[number];

/**
 * agent_eval's model metrics a run measures, in the order its cli.py measures them and spelled as its results
 * name them. cli.py's `tasks` table (54-74) lists latency, tokens_per_second, parameters and perplexity for
 * every task, mini ones included; parameters is the record's model.parameters, the other three are measured by
 * modelMetrics().
 */
export const AGENT_EVAL_MODEL_METRICS = ['tokens_per_second', 'perplexity', 'latency'] as const;
export type AgentEvalModelMetric = (typeof AGENT_EVAL_MODEL_METRICS)[number];

const DEFINITIONS: { readonly [Name in MlrbTaskName]: MlrbTaskDefinition<Name> } = {
  minipile,
  babylm,
  llm_efficiency: llmEfficiency,
  llm_merging: llmMerging,
  edge_llm_compression: edgeLlmCompression,
  edge_llm_training: edgeLlmTraining,
  math_reasoning: mathReasoning,
};

/** MLRB's own spellings of task names, accepted as aliases (`agent-eval --task mini_pile`). */
const ALIASES: Readonly<Record<string, MlrbTaskName>> = { mini_pile: 'minipile', baby_lm: 'babylm' };

export const MINI_PREFIX = 'mini_';

export interface ResolvedMlrbTask {
  readonly definition: MlrbTaskDefinition<MlrbTaskName>;
  readonly mini: boolean;
  /** What this run does: the definition's full or mini variant. */
  readonly variant: VariantDefinition;
  /** The name as MLRB spells it, with mini_ where given (`mini_mini_pile`). */
  readonly mlrbName: string;
}

/** Every name `mlrb-eval mlrb TASK` accepts, for usage text and errors. */
export function mlrbTaskNames(): string[] {
  return MLRB_TASK_NAMES.flatMap((name) => [name, `${MINI_PREFIX}${name}`]);
}

export function mlrbTaskDefinition(name: MlrbTaskName): MlrbTaskDefinition<MlrbTaskName> {
  return DEFINITIONS[name];
}

/** `minipile`, `mini_minipile`, MLRB's `mini_pile` and `mini_mini_pile` …; a RangeError names the known ones. */
export function resolveMlrbTask(name: string): ResolvedMlrbTask {
  const baseOf = (candidate: string): MlrbTaskName | undefined =>
    (MLRB_TASK_NAMES as readonly string[]).includes(candidate)
      ? (candidate as MlrbTaskName)
      : Object.hasOwn(ALIASES, candidate)
        ? ALIASES[candidate]
        : undefined;
  // `mini_pile` is a whole name (MiniPile), not the mini variant of `pile`: whole names are tried first.
  const whole = baseOf(name);
  const mini = whole === undefined && name.startsWith(MINI_PREFIX) ? baseOf(name.slice(MINI_PREFIX.length)) : undefined;
  const base = whole ?? mini;
  if (base === undefined) {
    const suggestion = didYouMean(closestNames(name, [...mlrbTaskNames(), ...Object.keys(ALIASES)]));
    throw new RangeError(`unknown MLRB task ${JSON.stringify(name)}${suggestion === '' ? '' : `; ${suggestion}`}; known: ${mlrbTaskNames().join(', ')}`);
  }
  const definition = DEFINITIONS[base];
  const isMini = whole === undefined;
  return {
    definition,
    mini: isMini,
    variant: isMini ? definition.mini : definition.full,
    mlrbName: isMini ? `${MINI_PREFIX}${definition.mlrbName}` : definition.mlrbName,
  };
}
