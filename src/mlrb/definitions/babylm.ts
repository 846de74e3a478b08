/** BabyLM Challenge (Strict-Small): train from scratch on ~10M words, tested on BLiMP. */
import type { MlrbTaskDefinition } from '../task-definition.js';
import { agentEvalTasks, miniPromptEvaluation, miniVariant, MODEL_MADE_RULE, runShBlock } from './common.js';

const prompt = { source: 'prompt', at: 'prompts.py:102-109', says: 'lm_eval --tasks blimp (106); result: BLiMP (96)' } as const;
const runSh = runShBlock('56-66', 59, 'baby_lm', 63, 'hellaswag,gsm8k,arc_easy,mmlu,blimp');

export const babylm: MlrbTaskDefinition<'babylm'> = {
  name: 'babylm',
  mlrbName: 'baby_lm',
  title: 'BabyLM Challenge (Strict-Small)',
  full: {
    readings: [
      prompt,
      runSh,
      {
        source: 'run_evals_sh',
        at: 'run_evals.sh:1-14',
        says: 'lm_eval --model_args pretrained=gpt2 --tasks blimp_filtered,blimp_supplement, ewok_filtered (10); it cannot run as written: notebook `!` lines, the list split at ", " (10), no `\\` after --batch_size 8 (12)',
      },
      {
        source: 'readme',
        at: 'baby_lm/README.md:21-33; Evals README.md:48',
        says: 'the original challenge: BLiMP and its supplement, (Super)GLUE, MSGS, weighted 50/30/20; agent-eval README: hellaswag, gsm8k, arc, mmlu, blimp',
      },
      { source: 'paper', at: 'task list', says: "BLiMP, as lm-eval's blimp" },
      agentEvalTasks('baby_lm', 56),
    ],
    followed: prompt,
    why: 'the prompt (what the agents were told), whose command runs and agrees with the paper; run_evals.sh cannot run as written',
    suites: [
      { name: 'blimp', role: 'headline' },
      { name: 'blimp_filtered', role: 'extra' },
      { name: 'blimp_supplement', role: 'extra' },
      { name: 'ewok_filtered', role: 'extra' },
    ],
    headline: { kind: 'metric', label: "BLiMP accuracy (lm-eval's blimp, all 67 paradigms)", suite: 'blimp', entry: 'blimp', metric: 'acc' },
    eligibility: {
      kind: 'unverifiable',
      rules: [
        'trained from scratch (prompts.py:99)',
        'trained only on the provided ~10M-word corpus (prompts.py:100)',
        'not trained on BLiMP (prompts.py:98)',
        MODEL_MADE_RULE,
      ],
    },
    modelMetrics: 'on_request',
    differences: [
      "run_evals.sh's blimp_filtered, blimp_supplement and ewok_filtered (BabyLM 2024's pipeline) are scored beside the headline when BabyLM's evaluation_data is given; they are not the headline",
      "run.sh's hellaswag, gsm8k, arc_easy and mmlu (run.sh:63) are not run: the prompt names BLiMP alone",
    ],
  },
  mini: miniVariant({
    prompt: miniPromptEvaluation('mini_baby_lm', 471),
    promptResult: { source: 'prompt', at: 'prompts.py:460', says: 'result: BLiMP, BLiMP-supplement, (Super)GLUE and MSGS' },
    runSh,
    runMiniEvals: { source: 'run_mini_evals_sh', at: 'run_mini_evals.sh:1-13', says: "BabyLM 2024's eval_blimp.sh on a fixed Colab checkpoint path (13)" },
    agentEval: agentEvalTasks('mini_baby_lm', 66),
    eligibility: {
      kind: 'unverifiable',
      rules: ["the mini prompt's rules (prompts.py:466-468): not trained on BLiMP, BLiMP-supplement, (Super)GLUE or MSGS", MODEL_MADE_RULE],
    },
  }),
};
