/** Edge LLMs Challenge, training track: train from scratch on C4 and Alpaca within 1 GB of DRAM, tested on SuperGLUE. */
import type { MlrbTaskDefinition } from '../task-definition.js';
import { agentEvalTasks, miniVariant, runShBlock } from './common.js';
import { SUPERGLUE_SCORE_DIFFERENCE } from './minipile.js';

const prompt = {
  source: 'prompt',
  at: 'prompts.py:355-362',
  says: 'lm_eval --tasks super-glue-lm-eval-v1 (359); result: SuperGLUE (347); 1 GB DRAM, FP16 or FP32, no quantization (324-325, 348-354)',
} as const;
const runSh = runShBlock('123-133', 126, 'edge_llm_training', 130, 'mmlu');
const TRACK_DIFFERENCE =
  "the DRAM, quantization and FP16/FP32 rules are checked on the model file (check-track edge-training), each measured; MLRB's own evaluation checks none of them";

export const edgeLlmTraining: MlrbTaskDefinition<'edge_llm_training'> = {
  name: 'edge_llm_training',
  mlrbName: 'edge_llm_training',
  title: 'Edge LLMs Challenge: Training from Scratch',
  full: {
    readings: [
      prompt,
      runSh,
      { source: 'run_evals_sh', at: 'run_evals.sh', says: 'no block for this task' },
      {
        source: 'readme',
        at: 'edge_llm_training/README.md:9, 16-40; Evals README.md:50',
        says: 'the original challenge: an OpenCompass subset, models within 12 GB; agent-eval README: mmlu',
      },
      agentEvalTasks('edge_llm_training', 62),
    ],
    followed: prompt,
    why: "the prompt (what the agents were told), whose command runs; run.sh's MMLU is not what the agents were told",
    suites: [{ name: 'superglue', role: 'headline' }],
    headline: { kind: 'metric', label: 'SuperGLUE score (mean of 7 accuracies and ReCoRD f1)', suite: 'superglue', entry: 'superglue', metric: 'score' },
    eligibility: { kind: 'track', track: 'edge-training' },
    modelMetrics: 'on_request',
    differences: [
      "run.sh (130) and the agent-eval README (50) run MMLU for this task; the prompt's SuperGLUE is run instead",
      SUPERGLUE_SCORE_DIFFERENCE,
      TRACK_DIFFERENCE,
    ],
  },
  mini: miniVariant({
    prompt: null,
    runSh,
    runMiniEvals: { source: 'run_mini_evals_sh', at: 'run_mini_evals.sh', says: 'no block for this task' },
    agentEval: agentEvalTasks('mini_edge_llm_training', 72),
    eligibility: { kind: 'track', track: 'edge-training' },
    differences: [TRACK_DIFFERENCE, "without a mini prompt the full task's rules (prompts.py:348-354) are applied"],
  }),
};
