/**
 * The generation fixtures (scripts/generate/record_greedy_expectations.py): small random GPT-2 and Llama exports,
 * with and without KV cache, and transformers' greedy ids for their prompts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadModel, type LanguageModel } from '../../src/model/onnx-model.js';
import { repoRoot } from './shared-data.js';

export const GENERATE_FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'generate');

export const ARCHITECTURES = ['gpt2', 'llama'] as const;
/** nopast: recomputed each step; past: KV cache with position_ids; past-nopositions: KV cache numbered by the graph. */
export const VARIANTS = ['nopast', 'past', 'past-nopositions'] as const;
export type Architecture = (typeof ARCHITECTURES)[number];
export type Variant = (typeof VARIANTS)[number];

export interface ArchitectureExpectations {
  readonly files: Record<Variant, string>;
  /** transformers' greedy ids per prompt, no EOS, maxNewTokens each. */
  readonly greedy: number[][];
  readonly minTopGap: number;
  readonly eosTokenId: number;
  /** The same with eosTokenId as EOS: runs that produce it end there (EOS included). */
  readonly eosGreedy: number[][];
  /** float32 logits of prompt 0's first generated position. */
  readonly firstLogits: number[];
}

export interface GenerationExpectations {
  readonly maxNewTokens: number;
  readonly prompts: number[][];
  readonly models: Record<Architecture, ArchitectureExpectations>;
}

export const expectations = JSON.parse(readFileSync(path.join(GENERATE_FIXTURES, 'expectations.json'), 'utf8')) as GenerationExpectations;

export function loadFixtureModel(arch: Architecture, variant: Variant, cpuFusion = true): Promise<LanguageModel> {
  return loadModel({ model: path.join(GENERATE_FIXTURES, expectations.models[arch].files[variant]), cpuFusion, onLog: () => {} });
}
