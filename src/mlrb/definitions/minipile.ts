/** MiniPile Challenge: pre-train on MiniPile, tested on SuperGLUE. */
import type { MlrbTaskDefinition } from '../task-definition.js';
import { agentEvalTasks, miniPromptEvaluation, miniVariant, MODEL_MADE_RULE, runShBlock } from './common.js';

const prompt = { source: 'prompt', at: 'prompts.py:141-148', says: 'lm_eval --tasks super-glue-lm-eval-v1 (145); result: SuperGLUE (140)' } as const;
const runSh = runShBlock('73-83', 76, 'mini_pile', 80, 'super_glue');

/** Our single number for SuperGLUE, shared with edge_llm_training. */
export const SUPERGLUE_SCORE_DIFFERENCE =
  "super-glue-lm-eval-v1 is a tag: lm-eval reports its eight tasks and no aggregate, and MLRB names no single SuperGLUE number; the headline, the `superglue` group's `score` (the plain mean of the seven accuracies and ReCoRD's f1), is ours";

export const minipile: MlrbTaskDefinition<'minipile'> = {
  name: 'minipile',
  mlrbName: 'mini_pile',
  title: 'MiniPile Challenge',
  full: {
    readings: [
      prompt,
      runSh,
      { source: 'run_evals_sh', at: 'run_evals.sh:95-101', says: 'lm_eval --model_args pretrained=gpt2 --tasks super_glue (97)' },
      {
        source: 'readme',
        at: 'mini_pile/README.md:25-35; Evals README.md:49',
        says: 'the original challenge: GLUE and SNI, fine-tuned; agent-eval README: glue',
      },
      { source: 'paper', at: 'task list', says: 'pre-train on MiniPile, evaluated on SuperGLUE' },
      agentEvalTasks('mini_pile', 57),
    ],
    followed: prompt,
    why: 'the prompt (what the agents were told), whose command runs; run.sh and run_evals.sh run the same eight tasks as `super_glue`',
    suites: [{ name: 'superglue', role: 'headline' }],
    headline: { kind: 'metric', label: 'SuperGLUE score (mean of 7 accuracies and ReCoRD f1)', suite: 'superglue', entry: 'superglue', metric: 'score' },
    eligibility: { kind: 'unverifiable', rules: ['pre-trained on MiniPile only (prompts.py:117)', 'not trained on SuperGLUE', MODEL_MADE_RULE] },
    modelMetrics: 'on_request',
    differences: [SUPERGLUE_SCORE_DIFFERENCE],
  },
  mini: miniVariant({
    prompt: miniPromptEvaluation('mini_mini_pile', 514),
    promptResult: { source: 'prompt', at: 'prompts.py:503', says: 'result: GLUE and SNI tasks' },
    runSh,
    runMiniEvals: { source: 'run_mini_evals_sh', at: 'run_mini_evals.sh:80-88', says: 'lm_eval --tasks glue (86)' },
    agentEval: agentEvalTasks('mini_mini_pile', 67),
    eligibility: { kind: 'unverifiable', rules: ["the mini prompt's rules (prompts.py:509-511): not trained on GLUE or SNI", MODEL_MADE_RULE] },
  }),
};
