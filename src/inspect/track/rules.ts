/**
 * The edge tracks' rules as their sources state them, one list per fact: what `check-track` gates on, where each
 * DRAM limit comes from, and the rules no model file can prove (reported as `unchecked`, never as a pass).
 * Sources: MLRB's task prompts (AlgorithmicResearchGroup/ML-Research-Agent-Tasks, mlrb_agent_tasks/prompts.py) and
 * the NeurIPS 2024 Edge-LLM challenge page ("Tracks": 12 GB of DRAM for both tracks, no quantization, "FP16 or
 * FP32 format"). Where they disagree (the training track's limit) MLRB's prompt is followed: MLRB is the benchmark
 * these verdicts are for, and its limit is the stricter.
 */
import type { TrackCheckName } from './verdict.js';

export interface TrackRules {
  readonly description: string;
  readonly budgetBytes: number;
  /** Where the DRAM limit comes from, quoted. */
  readonly limitSource: string;
  /** The rule each gate judges, quoted with its source: the track's gates are exactly these (track/track-check.ts). */
  readonly gates: Readonly<Partial<Record<TrackCheckName, string>>>;
  /** Rules about how the model was made: no file shows them. */
  readonly unchecked: readonly string[];
}

const NO_QUANTIZATION =
  'no quantization (prompts.py:294, 325: "The model must be submitted in FP16 or FP32 format (no quantization allowed)"; 305, 351: "You may not quantize the model"; Edge-LLM challenge: "no quantization methods are allowed")';
const FP16_OR_FP32 =
  'weights in FP16 or FP32 (prompts.py:294, 325: "The model must be submitted in FP16 or FP32 format"; Edge-LLM challenge: "participants must submit models in FP16 or FP32 formats"): bfloat16 and float64 weights fail';
const DRAM_MEASURED = "DRAM within the limit, measured on the kit's input (one forward pass, batch 1, 2,000 tokens of real text; the largest of the probes)";

export const EDGE_TRACKS = {
  'edge-training': {
    description: 'Edge-LLM training track: a model trained from scratch within 1 GB of DRAM',
    budgetBytes: 1e9,
    limitSource:
      'MLRB\'s edge_llm_training prompt (prompts.py:324, 352): "The model must run on a device with 1 GB DRAM"; the Edge-LLM challenge itself says 12 GB for both tracks, MLRB\'s stricter prompt is followed',
    gates: { quantization: NO_QUANTIZATION, dtype: FP16_OR_FP32, dram: DRAM_MEASURED },
    unchecked: [
      'only the C4 and Alpaca datasets for training and fine-tuning (prompts.py:349; Edge-LLM challenge)',
      'no pre-trained LLMs may be used (prompts.py:350; Edge-LLM challenge: "without leveraging any pre-trained LLMs")',
    ],
  },
  'edge-compression': {
    description: 'Edge-LLM compression track: Phi-2 compressed to fit 12 GB of DRAM',
    budgetBytes: 12e9,
    limitSource: 'MLRB\'s edge_llm_compression prompt (prompts.py:293): "The model must run on a device with 12 GB DRAM"; the Edge-LLM challenge says the same',
    gates: {
      quantization: NO_QUANTIZATION,
      dtype: FP16_OR_FP32,
      dram: DRAM_MEASURED,
      lineage: 'compressed from microsoft/phi-2 (prompts.py:298: "models": "microsoft/phi-2"), judged by the lineage of its weights',
    },
    unchecked: [
      'compression only, no training (prompts.py:304: "You must perform compression only, no training is allowed")',
      'no distillation (prompts.py:306: "You may not distill the model")',
    ],
  },
} as const satisfies Record<string, TrackRules>;

export type EdgeTrack = keyof typeof EDGE_TRACKS;

/** A DRAM limit in the units people quote it in: GB are 10⁹ bytes (the stricter reading), GiB 2³⁰. */
export interface LimitFigures {
  readonly bytes: number;
  readonly gb: number;
  readonly gib: number;
}

export function limitFigures(bytes: number): LimitFigures {
  return { bytes, gb: bytes / 1e9, gib: bytes / 2 ** 30 };
}
