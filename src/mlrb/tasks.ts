/**
 * MLRB's seven tasks as data: which lm-eval suites each one runs, which number is its headline, which
 * edge-track verdict decides eligibility, which of agent_eval's model metrics it runs, and what MLRB measures
 * that mlrb-eval cannot yet. The runner (run-task.ts) reads these and nothing else, so a change to a task is a
 * change here.
 *
 * Where the facts come from (their disagreements are settled per task below, and listed in the README):
 *  - ML-Research-Agent-Evals `run_evals.sh` (lm-eval per task), `run.sh` (what `agent-eval --task` ran) and
 *    `agent_eval/cli.py` (its model metrics per task);
 *  - ML-Research-Agent-Tasks `prompts.py` (each task's rules, result and evaluation command);
 *  - mlresearchbench.com/benchmark/tasks (the "Metric" column).
 * `mini_<task>` is the same evaluation: run.sh matches the task name as a substring, so mini_llm_merging runs
 * llm_merging's commands. What the mini prompts change is the agent's budget (8 hours, a small assigned model)
 * and, for some, the benchmark they name; those differences are kept as `miniNote`.
 */
import type { EdgeTrack } from '../inspect/dram-check.js';

/** The seven tasks, by the names this tool uses (MLRB's own spellings are aliases, below). */
export const MLRB_TASK_NAMES = [
  'minipile',
  'babylm',
  'llm_efficiency',
  'llm_merging',
  'edge_llm_compression',
  'edge_llm_training',
  'math_reasoning',
] as const;
export type MlrbTaskName = (typeof MLRB_TASK_NAMES)[number];

/** An lm-eval suite the task runs; `name` is a `--tasks` name, so `mlrb-eval MODEL --tasks NAME` is the same run. */
export interface TaskSuite {
  readonly name: string;
}

/** Where the headline number sits in lm-eval's results: a group or task entry and one of its metrics. */
export interface HeadlineMetric {
  readonly kind: 'metric';
  /** What the number is, for people ("MMLU accuracy"). */
  readonly label: string;
  /** The suite (one of the task's `suites`) that must be scored for the headline to exist. */
  readonly suite: string;
  /** The group or task name in lm-eval's results (`mmlu`, `superglue`, `blimp_filtered`). */
  readonly entry: string;
  readonly metric: string;
}

/** A headline mlrb-eval cannot compute yet: the record says so and gives no number. */
export interface HeadlineUnavailable {
  readonly kind: 'unavailable';
  readonly label: string;
  readonly reason: string;
}

/** A number from generated text (mlrb-eval's own scoring, not lm-eval's): the math-reasoning report's metric. */
export interface HeadlineGenerated {
  readonly kind: 'generated';
  readonly label: string;
  /** The metric of the math-reasoning report (`metrics.rouge_l`). */
  readonly metric: 'rouge_l';
}

export type HeadlineRule = HeadlineMetric | HeadlineUnavailable | HeadlineGenerated;

/** What decides whether a model may be counted for the task. */
export type EligibilityRule =
  /** The edge track's verdict (`mlrb-eval check-track TRACK MODEL`). */
  | { readonly kind: 'track'; readonly track: EdgeTrack }
  /** Rules about how the model was made, which no check of the model file can see. */
  | { readonly kind: 'unverifiable'; readonly rules: readonly string[] };

/** Something MLRB scores or measures for the task that mlrb-eval does not (yet). */
export interface Unavailable {
  readonly name: string;
  readonly kind: 'suite' | 'metric';
  readonly reason: string;
}

export interface MlrbTaskDefinition {
  readonly name: MlrbTaskName;
  /** MLRB's name for the task (`agent-eval --task`). */
  readonly mlrbName: string;
  readonly title: string;
  readonly suites: readonly TaskSuite[];
  readonly headline: HeadlineRule;
  readonly eligibility: EligibilityRule;
  readonly unavailable: readonly Unavailable[];
  /** Which of agent_eval's model metrics cli.py runs for the task (`tasks[task]`). */
  readonly modelMetrics: readonly AgentEvalModelMetric[];
  /** How the mini_ variant's prompt differs; its evaluation does not. */
  readonly miniNote: string;
}

/**
 * agent_eval's model metrics, in the order its cli.py measures them and spelled as its results name them. cli.py's
 * `tasks` table lists latency, tokens_per_second, parameters and perplexity for every task, mini ones included;
 * parameters is the record's model.parameters, the other three are measured by modelMetrics() when the run asks.
 */
export const AGENT_EVAL_MODEL_METRICS = ['tokens_per_second', 'perplexity', 'latency'] as const;
export type AgentEvalModelMetric = (typeof AGENT_EVAL_MODEL_METRICS)[number];

const MODEL_MADE_RULE = 'these rules concern how the model was made, which a model file cannot show';

const DEFINITIONS: Readonly<Record<MlrbTaskName, MlrbTaskDefinition>> = {
  minipile: {
    name: 'minipile',
    mlrbName: 'mini_pile',
    title: 'MiniPile Challenge',
    // run_evals.sh runs lm-eval's `super_glue`; the task prompt's command names `super-glue-lm-eval-v1`: the
    // same eight tasks, which our `superglue` suite scores.
    suites: [{ name: 'superglue' }],
    // MLRB does not say how its SuperGLUE number combines the eight tasks (lm-eval defines a tag, no group).
    // The headline is our `superglue` group's `score`: the plain mean of the seven accuracies and ReCoRD's f1.
    headline: { kind: 'metric', label: 'SuperGLUE score (mean of 7 accuracies and ReCoRD f1)', suite: 'superglue', entry: 'superglue', metric: 'score' },
    eligibility: { kind: 'unverifiable', rules: ['pre-trained on MiniPile only', 'not trained on SuperGLUE', MODEL_MADE_RULE] },
    unavailable: [],
    modelMetrics: AGENT_EVAL_MODEL_METRICS,
    miniNote: 'mini_mini_pile\'s prompt names GLUE and SNI; run.sh scores it as mini_pile (agent-eval\'s run.sh runs lm-eval `glue` there, run_evals.sh `super_glue`); GLUE and SNI are not suites here',
  },
  babylm: {
    name: 'babylm',
    mlrbName: 'baby_lm',
    title: 'BabyLM Challenge (Strict-Small)',
    suites: [{ name: 'blimp_filtered' }, { name: 'blimp_supplement' }, { name: 'ewok_filtered' }],
    // mlresearchbench.com's metric is "performance on BLiMP"; run_evals.sh scores BabyLM 2024's filtered BLiMP.
    headline: { kind: 'metric', label: 'BabyLM BLiMP (filtered) accuracy, macro mean over paradigms', suite: 'blimp_filtered', entry: 'blimp_filtered', metric: 'acc' },
    eligibility: { kind: 'unverifiable', rules: ['trained from scratch', 'trained only on the provided ~10M-word corpus', 'not trained on BLiMP', MODEL_MADE_RULE] },
    unavailable: [],
    modelMetrics: AGENT_EVAL_MODEL_METRICS,
    miniNote: 'mini_baby_lm\'s prompt also names (Super)GLUE and MSGS; its evaluation (run_mini_evals.sh) is BabyLM\'s BLiMP',
  },
  llm_efficiency: {
    name: 'llm_efficiency',
    mlrbName: 'llm_efficiency',
    title: '1LLM + 1GPU + 1Day: LLM Efficiency Challenge',
    // run_evals.sh: `hellaswag, gsm8k, arc, mmlu, blimp`. lm-eval has no task `arc`; its `ai2_arc` tag is
    // arc_easy and arc_challenge, both scored here. gsm8k generates (5-shot, greedy) after the scoring.
    suites: [{ name: 'mmlu' }, { name: 'hellaswag' }, { name: 'gsm8k' }, { name: 'arc_easy' }, { name: 'arc_challenge' }, { name: 'blimp' }],
    // The task's stated result and mlresearchbench.com's metric are (a subset of) MMLU; which subset is not said.
    headline: { kind: 'metric', label: 'MMLU accuracy (all 57 subjects; MLRB names "a subset" without saying which)', suite: 'mmlu', entry: 'mmlu', metric: 'acc' },
    eligibility: { kind: 'unverifiable', rules: ['an approved base model', 'open-source data only', 'not trained on MMLU', 'one GPU, 24 hours', MODEL_MADE_RULE] },
    unavailable: [],
    modelMetrics: AGENT_EVAL_MODEL_METRICS,
    miniNote: 'mini_llm_efficiency gives an 8-hour budget and a small assigned model; the evaluation is the same',
  },
  llm_merging: {
    name: 'llm_merging',
    mlrbName: 'llm_merging',
    title: 'LLM-Merging Competition',
    suites: [{ name: 'mmlu' }],
    headline: { kind: 'metric', label: 'MMLU accuracy', suite: 'mmlu', entry: 'mmlu', metric: 'acc' },
    eligibility: { kind: 'unverifiable', rules: ['merged from public models of at most 8B parameters with the provided merging code', 'not trained on MMLU', MODEL_MADE_RULE] },
    unavailable: [],
    modelMetrics: AGENT_EVAL_MODEL_METRICS,
    miniNote: 'mini_llm_merging\'s prompt names CosmosQA and XSUM; its evaluation (run.sh, run_mini_evals.sh) is MMLU',
  },
  edge_llm_compression: {
    name: 'edge_llm_compression',
    mlrbName: 'edge_llm_compression',
    title: 'Edge LLMs Challenge: Compression',
    suites: [{ name: 'mmlu' }],
    headline: { kind: 'metric', label: 'MMLU accuracy', suite: 'mmlu', entry: 'mmlu', metric: 'acc' },
    eligibility: { kind: 'track', track: 'edge-compression' },
    unavailable: [],
    modelMetrics: AGENT_EVAL_MODEL_METRICS,
    miniNote: 'mini_edge_llm_compression compresses the agent\'s assigned small model, not Phi-2: its pruning check needs --base; the prompt names a subset of OpenCompass, the evaluation is MMLU',
  },
  edge_llm_training: {
    name: 'edge_llm_training',
    mlrbName: 'edge_llm_training',
    title: 'Edge LLMs Challenge: Training from Scratch',
    // The task prompt's evaluation command is `super-glue-lm-eval-v1` (its result: "the SuperGLUE benchmark");
    // mlresearchbench.com's table and run.sh say MMLU. The prompt is what agents were told, so SuperGLUE.
    suites: [{ name: 'superglue' }],
    headline: { kind: 'metric', label: 'SuperGLUE score (mean of 7 accuracies and ReCoRD f1)', suite: 'superglue', entry: 'superglue', metric: 'score' },
    eligibility: { kind: 'track', track: 'edge-training' },
    unavailable: [],
    modelMetrics: AGENT_EVAL_MODEL_METRICS,
    miniNote: 'mini_edge_llm_training has no prompt of its own in prompts.py; run.sh evaluates it as edge_llm_training',
  },
  math_reasoning: {
    name: 'math_reasoning',
    mlrbName: 'math_reasoning',
    title: 'ICML 2024 Automated Math Reasoning, Track 1-1: Autoformalization',
    // run.sh's lm-eval subjects are reported beside the record; they are not MLRB's metric.
    suites: [{ name: 'mmlu_high_school_mathematics' }, { name: 'mmlu_high_school_statistics' }, { name: 'mmlu_high_school_computer_science' }],
    // agent-eval's final_score.py knows one generation metric, rouge_l (normalized by its reference models'
    // rouge_l, 0.480–0.484 in cli.py's model_metrics), so ROUGE-L is the headline; BLEU and the Lean compile rate are reported
    // beside it in the record's math_reasoning. Prompts: the informal statement and proof; reference: formal_proof.
    headline: { kind: 'generated', label: 'ROUGE-L of generated Lean 3 proofs (mean F over problems)', metric: 'rouge_l' },
    eligibility: { kind: 'unverifiable', rules: ['open-source model and data', MODEL_MADE_RULE] },
    unavailable: [],
    modelMetrics: AGENT_EVAL_MODEL_METRICS,
    miniNote: 'mini_math_reasoning\'s prompt names MMLU high-school and college mathematics and MathQA; run.sh evaluates it as math_reasoning',
  },
};

/** MLRB's own spellings of task names, accepted as aliases (`agent-eval --task mini_pile`). */
const ALIASES: Readonly<Record<string, MlrbTaskName>> = { mini_pile: 'minipile', baby_lm: 'babylm' };

export const MINI_PREFIX = 'mini_';

export interface ResolvedMlrbTask {
  readonly definition: MlrbTaskDefinition;
  readonly mini: boolean;
  /** The name as MLRB spells it, with mini_ where given (`mini_mini_pile`). */
  readonly mlrbName: string;
}

/** Every name `mlrb-eval mlrb TASK` accepts, for usage text and errors. */
export function mlrbTaskNames(): string[] {
  return MLRB_TASK_NAMES.flatMap((name) => [name, `${MINI_PREFIX}${name}`]);
}

export function mlrbTaskDefinition(name: MlrbTaskName): MlrbTaskDefinition {
  return DEFINITIONS[name];
}

/** `minipile`, `mini_minipile`, MLRB's `mini_pile` and `mini_mini_pile` …; a RangeError names the known ones. */
export function resolveMlrbTask(name: string): ResolvedMlrbTask {
  const baseOf = (candidate: string): MlrbTaskName | undefined =>
    (MLRB_TASK_NAMES as readonly string[]).includes(candidate) ? (candidate as MlrbTaskName) : Object.hasOwn(ALIASES, candidate) ? ALIASES[candidate] : undefined;
  // `mini_pile` is a whole name (MiniPile), not the mini variant of `pile`: whole names are tried first.
  const whole = baseOf(name);
  const mini = whole === undefined && name.startsWith(MINI_PREFIX) ? baseOf(name.slice(MINI_PREFIX.length)) : undefined;
  const base = whole ?? mini;
  if (base === undefined) throw new RangeError(`unknown MLRB task ${JSON.stringify(name)}; known: ${mlrbTaskNames().join(', ')}`);
  const definition = DEFINITIONS[base];
  const isMini = whole === undefined;
  return { definition, mini: isMini, mlrbName: isMini ? `${MINI_PREFIX}${definition.mlrbName}` : definition.mlrbName };
}
