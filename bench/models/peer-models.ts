/**
 * The models of the real-peer section, built by scripts/bench/build_peer_models.py (default
 * /work/models, or $MLRB_BENCH_MODELS): each folder holds model.onnx with config.json and the tokenizer
 * beside it (what mlrb-eval loads) and hf/, the same weights as a Hugging Face checkpoint (what lm-eval's
 * HF backend loads). Nothing here builds them: they take minutes and ~2 GB of Python memory.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { BenchModel } from './bench-models.js';

export interface PeerModel extends BenchModel {
  /** Hugging Face checkpoint of the same weights, for lm-eval's HFLM. */
  readonly hfDir: string;
  /** Bytes of model.onnx: the weights mlrb-eval loads, the base of the peak-RSS target. */
  readonly onnxBytes: number;
}

export const PEER_MODEL_NAMES = ['gpt2-small', 'stories260K'] as const;
export type PeerModelName = (typeof PEER_MODEL_NAMES)[number];

export const DEFAULT_PEER_MODELS_DIR = process.env.MLRB_BENCH_MODELS ?? '/work/models';

/** config.json's shape under either naming: GPT-2's (n_embd, n_layer …) or Llama's (hidden_size …). */
const pickNumber = (config: Record<string, unknown>, ...keys: string[]): number => {
  for (const key of keys) if (typeof config[key] === 'number') return config[key];
  throw new TypeError(`config.json has none of ${keys.join(', ')}`);
};

function dimsFromConfig(configFile: string): BenchModel['dims'] {
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  const hidden = pickNumber(config, 'n_embd', 'hidden_size');
  return {
    vocab: pickNumber(config, 'vocab_size'),
    hidden,
    layers: pickNumber(config, 'n_layer', 'num_hidden_layers'),
    heads: pickNumber(config, 'n_head', 'num_attention_heads'),
    // GPT-2 writes n_inner: null for its default of 4 × n_embd.
    mlp: typeof config.n_inner === 'number' ? config.n_inner : 'n_embd' in config ? 4 * hidden : pickNumber(config, 'intermediate_size'),
  };
}

/** The model if its folder is complete (model.onnx, config.json, hf/config.json), else why not. */
export function findPeerModel(root: string, name: PeerModelName): PeerModel | { missing: string } {
  const dir = path.join(root, name);
  const modelPath = path.join(dir, 'model.onnx');
  const hfDir = path.join(dir, 'hf');
  for (const needed of [modelPath, path.join(dir, 'config.json'), path.join(hfDir, 'config.json')]) {
    if (!existsSync(needed)) return { missing: needed };
  }
  const onnxBytes = statSync(modelPath).size;
  const dims = dimsFromConfig(path.join(dir, 'config.json'));
  // The export's fp32 initializers are nearly all of the file (the graph itself is a few hundred KB).
  return { name, dir, modelPath, hfDir, onnxBytes, weightBytes: onnxBytes, parameters: Math.round(onnxBytes / 4), dims };
}
