/** ICML 2024 Automated Math Reasoning, Track 1-1: autoformalization into Lean 3. */
import type { MlrbTaskDefinition } from '../task-definition.js';
import { agentEvalTasks, miniPromptEvaluation, miniVariant, MODEL_MADE_RULE, runShBlock } from './common.js';

const runSh = runShBlock('139-149', 142, 'math_reasoning', 146, 'mmlu_high_school_mathematics,mmlu_high_school_statistics,mmlu_high_school_computer_science');
const paper = { source: 'paper', at: 'findings', says: 'how many generated Lean 3 proofs compile (its first finding), with BLEU and ROUGE-L' } as const;

export const mathReasoning: MlrbTaskDefinition<'math_reasoning'> = {
  name: 'math_reasoning',
  mlrbName: 'math_reasoning',
  title: 'ICML 2024 Automated Math Reasoning, Track 1-1: Autoformalization',
  full: {
    readings: [
      {
        source: 'prompt',
        at: 'prompts.py:388-390',
        says: '"You must evaluate your model on the a portion of the data provided": no command; data AlgorithmicResearchGroup/math_reasoning_autoformalization_track (371)',
      },
      runSh,
      { source: 'run_evals_sh', at: 'run_evals.sh:78-88', says: 'lm_eval --tasks ? (84)' },
      {
        source: 'readme',
        at: 'Evals README.md:51',
        says: 'mmlu_high_school_mathematics, _statistics, _computer_science (for mini_math_reasoning); full_benchmark/math_reasoning has no README',
      },
      paper,
      {
        source: 'agent_eval',
        at: 'cli.py:54-74, 183-202; rouge_l.py; bleu.py',
        says: 'the four model metrics; BLEU and ROUGE-L code exists but no task runs it',
      },
    ],
    followed: paper,
    why: "the prompt gives no command to run (prompts.py:388-390), so the paper's measure is followed: whether the generated Lean compiles",
    suites: [
      { name: 'mmlu_high_school_mathematics', role: 'extra' },
      { name: 'mmlu_high_school_statistics', role: 'extra' },
      { name: 'mmlu_high_school_computer_science', role: 'extra' },
    ],
    headline: { kind: 'generated', label: 'Lean compile rate of the generated Lean 3 proofs', metric: 'lean.compile_rate' },
    eligibility: { kind: 'unverifiable', rules: ['an open-source model (prompts.py:380)', MODEL_MADE_RULE] },
    modelMetrics: 'on_request',
    differences: [
      'the headline needs a Lean toolchain (--lean); without one it is not scored, and BLEU and ROUGE-L are still reported beside it (record math_reasoning)',
      'BLEU (sacrebleu, corpus) and ROUGE-L (mean F, Porter-stemmed) are taken against formal_proof, greedy, every problem, the informal statement and proof in the prompt, the generated text alone scored (docs/math-reasoning.md)',
      "MLRB's own ROUGE/BLEU code was never wired into a task: no task lists bleu or rouge_l (cli.py:54-74), and the rouge_l branch calls benchmark_rouge_l_score() (cli.py:196), which RougeScoreBenchmark lacks (it defines benchmark_rouge_score, rouge_l.py:43). Written as it is, it samples (T 0.7, top-k 50; rouge_l.py:16-27) for the first 100 rows of data/math_problems.json (cli.py:195), prompts `Problem: {informal_statement}\\nSolution:` (rouge_l.py:57), scores the whole decoded output, prompt included (rouge_l.py:26), against informal_proof (rouge_l.py:54), and takes evaluate's bootstrap aggregate (rouge_l.py:35); bleu.py the same with whitespace-split unsmoothed BLEU",
      "run.sh's three MMLU subjects (146) are scored beside the headline when MMLU is given; they are not the task's measure",
      "the paper's best model was a fine-tuned Flan-T5, an encoder-decoder: mlrb-eval scores and generates with its optimum export as lm-eval's seq2seq backend and transformers' generate() do (docs/encoder-decoder.md); agent_eval's model metrics load AutoModelForCausalLM, which cannot load it, so its perplexity is not measured (the reason is recorded)",
    ],
  },
  mini: miniVariant({
    prompt: miniPromptEvaluation('mini_math_reasoning', 656),
    promptResult: { source: 'prompt', at: 'prompts.py:637-643', says: 'task: MMLU high-school and college mathematics, MathQA' },
    runSh,
    runMiniEvals: {
      source: 'run_mini_evals_sh',
      at: 'run_mini_evals.sh:69-77',
      says: 'lm_eval --tasks math, mmlu_high_school_mathmatics, mmlu_college_mathmatics (75; misspelt)',
    },
    agentEval: agentEvalTasks('mini_math_reasoning', 73),
    eligibility: { kind: 'unverifiable', rules: ['the mini prompt states no rules (prompts.py:635-660)'] },
  }),
};
