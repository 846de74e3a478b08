/** Edge LLMs Challenge, compression track: compress Phi-2 to fit 12 GB of DRAM, no quantization, tested on MMLU. */
import type { MlrbTaskDefinition } from '../task-definition.js';
import { agentEvalTasks, miniPromptEvaluation, miniVariant, runShBlock } from './common.js';

const prompt = {
  source: 'prompt',
  at: 'prompts.py:308-315',
  says: 'lm_eval --tasks mmlu (312); 12 GB DRAM, FP16 or FP32, no quantization (293-294, 303-307); microsoft/phi-2 (298)',
} as const;
const runSh = runShBlock('105-116', 108, 'edge_llm_compression', 113, 'mmlu');
const TRACK_DIFFERENCE =
  "the DRAM, quantization, FP16/FP32 and Phi-2 rules are checked on the model file (check-track edge-compression), each measured; MLRB's own evaluation checks none of them";

export const edgeLlmCompression: MlrbTaskDefinition<'edge_llm_compression'> = {
  name: 'edge_llm_compression',
  mlrbName: 'edge_llm_compression',
  title: 'Edge LLMs Challenge: Compression',
  full: {
    readings: [
      prompt,
      runSh,
      { source: 'run_evals_sh', at: 'run_evals.sh:41-51', says: 'lm_eval --model_args pretrained=gpt2 --tasks mmlu (47)' },
      {
        source: 'readme',
        at: 'edge_llm_compression/README.md:13-31; Evals README.md:50',
        says: 'the original challenge: an OpenCompass subset and hidden tasks, memory under 12 GB, throughput on a phone; agent-eval README: mmlu',
      },
      agentEvalTasks('edge_llm_compression', 61),
    ],
    followed: prompt,
    why: 'the prompt (what the agents were told), whose command runs and agrees with run.sh and run_evals.sh',
    suites: [{ name: 'mmlu', role: 'headline' }],
    headline: { kind: 'metric', label: 'MMLU accuracy (all 57 subjects)', suite: 'mmlu', entry: 'mmlu', metric: 'acc' },
    eligibility: { kind: 'track', track: 'edge-compression' },
    modelMetrics: 'on_request',
    differences: [TRACK_DIFFERENCE],
  },
  mini: miniVariant({
    prompt: miniPromptEvaluation('mini_edge_llm_compression', 630),
    promptResult: { source: 'prompt', at: 'prompts.py:606-617', says: '12 GB DRAM, FP16 or FP32; result: a subset of OpenCompass' },
    runSh,
    runMiniEvals: { source: 'run_mini_evals_sh', at: 'run_mini_evals.sh:28-46', says: 'lm_eval --tasks mmlu (34, 44)' },
    agentEval: agentEvalTasks('mini_edge_llm_compression', 71),
    eligibility: { kind: 'track', track: 'edge-compression' },
    differences: [TRACK_DIFFERENCE, "the mini task compresses the agent's assigned small model (prompts.py:613), not Phi-2: its lineage check needs --base"],
  }),
};
