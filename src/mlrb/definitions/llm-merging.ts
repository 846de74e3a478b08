/** LLM-Merging Competition: merge public expert models with the provided code, tested on MMLU. */
import type { MlrbTaskDefinition } from '../task-definition.js';
import { agentEvalTasks, miniPromptEvaluation, miniVariant, MODEL_MADE_RULE, runShBlock } from './common.js';

const prompt = { source: 'prompt', at: 'prompts.py:277-284', says: 'lm_eval --tasks mmlu (281); task: MMLU (225); result: CosmosQA and XSUM (266)' } as const;
const runSh = runShBlock('89-99', 92, 'llm_merging', 96, 'mmlu');

export const llmMerging: MlrbTaskDefinition<'llm_merging'> = {
  name: 'llm_merging',
  mlrbName: 'llm_merging',
  title: 'LLM-Merging Competition',
  full: {
    readings: [
      prompt,
      runSh,
      { source: 'run_evals_sh', at: 'run_evals.sh:65-75', says: 'lm_eval --model_args pretrained=gpt2 --tasks mmlu (71)' },
      {
        source: 'readme',
        at: 'llm_merging/README.md:36-42, 76; Evals README.md:50',
        says: 'a HELM subset and hidden tasks; the example code evaluates CosmosQA and XSum; agent-eval README: mmlu',
      },
      { source: 'paper', at: 'task list', says: 'MMLU' },
      agentEvalTasks('llm_merging', 60),
    ],
    followed: prompt,
    why: "the prompt's task and command (what the agents were told), which run.sh, run_evals.sh and the paper share",
    suites: [{ name: 'mmlu', role: 'headline' }],
    headline: { kind: 'metric', label: 'MMLU accuracy (all 57 subjects)', suite: 'mmlu', entry: 'mmlu', metric: 'acc' },
    eligibility: {
      kind: 'unverifiable',
      rules: [
        'merged from public models of at most 8B parameters with the provided merging code (prompts.py:226-230, 250-261)',
        'not trained on MMLU (prompts.py:268)',
        MODEL_MADE_RULE,
      ],
    },
    modelMetrics: 'on_request',
    differences: ["the prompt's stated result, CosmosQA and XSUM (prompts.py:266), contradicts its own task and command; the command (MMLU) is what runs"],
  },
  mini: miniVariant({
    prompt: miniPromptEvaluation('mini_llm_merging', 588),
    promptResult: { source: 'prompt', at: 'prompts.py:576', says: 'result: CosmosQA and XSUM' },
    runSh,
    runMiniEvals: { source: 'run_mini_evals_sh', at: 'run_mini_evals.sh:58-66', says: 'lm_eval --tasks mmlu (64)' },
    agentEval: agentEvalTasks('mini_llm_merging', 70),
    eligibility: {
      kind: 'unverifiable',
      rules: ["the mini prompt's rules (prompts.py:590-599): the provided merging code, not trained on CosmosQA or XSUM", MODEL_MADE_RULE],
    },
  }),
};
