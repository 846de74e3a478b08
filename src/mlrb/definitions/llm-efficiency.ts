/** 1LLM + 1GPU + 1Day: fine-tune an approved base model on open data, tested on MMLU. */
import type { MlrbTaskDefinition } from '../task-definition.js';
import { agentEvalTasks, miniPromptEvaluation, miniVariant, MODEL_MADE_RULE, runShBlock } from './common.js';

const prompt = { source: 'prompt', at: 'prompts.py:58-65', says: 'lm_eval --tasks mmlu (62); result: "a subset of the MMLU benchmark" (50)' } as const;
const runSh = runShBlock('39-50', 42, 'llm_efficiency', 46, 'mmlu');

export const llmEfficiency: MlrbTaskDefinition<'llm_efficiency'> = {
  name: 'llm_efficiency',
  mlrbName: 'llm_efficiency',
  title: '1LLM + 1GPU + 1Day: LLM Efficiency Challenge',
  full: {
    readings: [
      prompt,
      runSh,
      {
        source: 'run_evals_sh',
        at: 'run_evals.sh:53-63',
        says: 'lm_eval --model_args pretrained=gpt2 --tasks hellaswag, gsm8k, arc, mmlu, blimp (59); it cannot run as written: `!` lines, the list split at ", ", no task `arc`, no `\\` at 60',
      },
      {
        source: 'readme',
        at: 'llm_efficiency/README.md:35-43; Evals README.md:47',
        says: 'the original challenge: a HELM subset and secret tasks, geometric mean; agent-eval README: hellaswag',
      },
      agentEvalTasks('llm_efficiency', 55),
    ],
    followed: prompt,
    why: 'the prompt (what the agents were told), whose command runs and agrees with run.sh',
    suites: [
      { name: 'mmlu', role: 'headline' },
      { name: 'hellaswag', role: 'extra' },
      { name: 'gsm8k', role: 'extra' },
      { name: 'arc_easy', role: 'extra' },
      { name: 'arc_challenge', role: 'extra' },
      { name: 'blimp', role: 'extra' },
    ],
    headline: { kind: 'metric', label: 'MMLU accuracy (all 57 subjects)', suite: 'mmlu', entry: 'mmlu', metric: 'acc' },
    eligibility: {
      kind: 'unverifiable',
      rules: [
        'an approved base model (prompts.py:20-46)',
        'open-source data only',
        'not trained on MMLU',
        'one GPU, 24 hours (prompts.py:51-57)',
        MODEL_MADE_RULE,
      ],
    },
    modelMetrics: 'on_request',
    differences: [
      'MMLU is all 57 subjects, as the prompt\'s command runs; its stated "subset of the MMLU benchmark" (prompts.py:50) is defined nowhere',
      "run_evals.sh's hellaswag, gsm8k, arc and blimp are scored beside the headline when their data is given; its `arc` is no lm-eval task, and scoring both arc_easy and arc_challenge (lm-eval's ai2_arc tag) is our reading of it",
    ],
  },
  mini: miniVariant({
    prompt: miniPromptEvaluation('mini_llm_efficiency', 430),
    runSh,
    runMiniEvals: { source: 'run_mini_evals_sh', at: 'run_mini_evals.sh:48-56', says: 'lm_eval --tasks hellaswag, gsm8k, arc, mmlu, blimp (54)' },
    agentEval: agentEvalTasks('mini_llm_efficiency', 65),
    eligibility: {
      kind: 'unverifiable',
      rules: ["the mini prompt's rules (prompts.py:422-427): open-source data, not trained on MMLU, one GPU", MODEL_MADE_RULE],
    },
  }),
};
