/**
 * What the seven task definitions share: the rule no model file can show, the readings every variant has in
 * common (agent_eval's task table, run.sh's substring match), and the mini_ variant's shape. Every mini prompt
 * evaluates with `agent-eval --task mini_X` alone, which runs the four model metrics and no lm-eval.
 */
import type { SourceReading } from '../sources.js';
import type { EligibilityRule, VariantDefinition } from '../task-definition.js';

export const MODEL_MADE_RULE = 'these rules concern how the model was made, which a model file cannot show';

/** agent_eval/cli.py:54-74: every task, mini ones included, runs latency, tokens_per_second, parameters, perplexity. */
export function agentEvalTasks(task: string, line: number): SourceReading {
  return { source: 'agent_eval', at: `cli.py:${line}`, says: `tasks["${task}"]: latency, tokens_per_second, parameters, perplexity` };
}

/** What run.sh's block for the task runs (it matches the name as a substring, so mini_X runs X's block). */
export function runShBlock(lines: string, cliLine: number, task: string, lmEvalLine: number | null, lmEvalTasks: string | null): SourceReading {
  const lmEval = lmEvalLine === null ? '' : `; lm_eval --tasks ${lmEvalTasks} (run.sh:${lmEvalLine})`;
  return { source: 'run_sh', at: `run.sh:${lines}`, says: `agent_eval/cli.py --task ${task} (run.sh:${cliLine})${lmEval}` };
}

/** The agent-eval line of a mini prompt's "evaluation". */
export function miniPromptEvaluation(task: string, line: number): SourceReading {
  return { source: 'prompt', at: `prompts.py:${line}`, says: `agent-eval --model_args <path_to_your_model> --task ${task}` };
}

export const MINI_HEADLINE_REASON =
  "MLRB's mini prompts evaluate with `agent-eval --task mini_X` alone, which prints parameters, tokens per second, perplexity " +
  'and latency (agent_eval/cli.py:107-180) and combines none of them into one number; they are in model_metrics';

export interface MiniVariantFacts {
  /** The mini prompt's evaluation line, or null where prompts.py has no mini prompt for the task. */
  readonly prompt: SourceReading | null;
  /** What else the mini prompt says (its stated result), for the table. */
  readonly promptResult?: SourceReading;
  readonly runSh: SourceReading;
  readonly runMiniEvals: SourceReading | null;
  readonly agentEval: SourceReading;
  readonly eligibility: EligibilityRule;
  /** Differences beyond the ones every mini variant has. */
  readonly differences?: readonly string[];
}

/** The mini_ variant: agent-eval's four model metrics, as the mini prompt (or, lacking one, agent_eval's table) runs them. */
export function miniVariant(facts: MiniVariantFacts): VariantDefinition {
  const followed = facts.prompt ?? facts.agentEval;
  return {
    readings: [facts.prompt, facts.promptResult, facts.runSh, facts.runMiniEvals, facts.agentEval].filter(
      (reading): reading is SourceReading => reading !== null && reading !== undefined,
    ),
    followed,
    why:
      facts.prompt !== null
        ? "the mini prompt's evaluation command, which runs agent-eval's model metrics and no lm-eval suite"
        : "prompts.py has no prompt for this mini task; agent_eval's task table, which every mini prompt's command runs, lists it with the four model metrics",
    suites: [],
    headline: { kind: 'none', label: "agent-eval's model metrics (MLRB defines no single number)", reason: MINI_HEADLINE_REASON },
    eligibility: facts.eligibility,
    modelMetrics: 'always',
    differences: [
      "run.sh matches task names as substrings, so it would also run the full task's lm-eval command for mini_X; the mini prompt runs agent-eval alone, and so does this",
      ...(facts.differences ?? []),
    ],
  };
}
