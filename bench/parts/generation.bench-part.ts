/**
 * Decode speed, in one run: greedy generation on stories260K and the GPT-2-small-sized model, with the KV
 * cache and without, batch 1 and 8, for every peer — ours (when wired), transformers.js `generate`, and the
 * naive onnxruntime-node loops — on the same prompt ids (all of one length: no row is padded).
 *
 * One way of timing for all (decode-timing.ts): decode tokens/s with prefill excluded, every run's ids checked
 * against transformers' greedy ids for the same prompts (generation-reference.json, written with the models).
 */
import { loadavg } from 'node:os';
import { findGenerationModel, GENERATION_MODEL_NAMES, type GenerationModel } from '../models/generation-models.js';
import type { PeerModelName } from '../models/peer-models.js';
import type { GreedyDecoder } from '../peers/greedy-decoder.js';
import { createNaiveOrtDecoder } from '../peers/naive-ort-generate.js';
import { createTransformersJsDecoder } from '../peers/transformers-js-generate.js';
import { cpuInfo, type CpuInfo } from './cpu-info.js';
import { measureDecoding, type DecodeTiming } from './decode-timing.js';

export type KvCache = 'kv' | 'no-kv';
/**
 * Ours on the graph with past, decoding through its own past inputs and presents (decodeCache off): what the
 * kv rows ran before the fused cache took equal-length batches of such graphs, kept as a row of its own.
 */
const OURS_OWN_PAST = "ours, graph's own past" as const;
export const GENERATION_PEERS = ['ours', OURS_OWN_PAST, 'transformers.js generate', 'naive ORT-JS loop'] as const;
export type GenerationPeer = (typeof GENERATION_PEERS)[number];

/**
 * Our engine for one model and cache mode, or undefined where it has no such mode. The factory receives both
 * graphs (model.noPastPath, model.kvPath) and picks the one its mode needs.
 */
export type OurDecoderFactory = (
  model: GenerationModel,
  cache: KvCache,
  threads?: number,
  rewrites?: Readonly<Record<string, boolean>>,
) => Promise<GreedyDecoder | undefined>;

export interface GenerationRow extends DecodeTiming {
  readonly model: PeerModelName;
  readonly peer: GenerationPeer;
  readonly cache: KvCache;
  readonly batch: number;
}

export interface GenerationResult {
  readonly cpu: CpuInfo;
  /** What did not run, and why (missing models, unsupported peer modes, failures). */
  readonly skipped: readonly string[];
  readonly rows: readonly GenerationRow[];
  readonly loadAverage: { readonly start: number; readonly end: number };
}

export interface GenerationOptions {
  readonly modelsDir: string;
  readonly quick: boolean;
  readonly threads?: number | undefined;
  /** Absent until our engine is wired in (bench/peers/ours-generate.ts). */
  readonly ours?: OurDecoderFactory | undefined;
}

const BATCHES = [1, 8] as const;
/** New tokens and repetitions per model: the no-KV GPT-2 loop reruns ~100-token batches per step, so it gets one run. */
const PLANS: Record<PeerModelName, { newTokens: number; repetitions: number }> = {
  stories260K: { newTokens: 64, repetitions: 3 },
  'gpt2-small': { newTokens: 32, repetitions: 1 },
};
const QUICK_PLAN = { newTokens: 4, repetitions: 1 };

type PeerFactory = (model: GenerationModel, cache: KvCache, threads?: number) => Promise<GreedyDecoder | string>;

const TRANSFORMERS_JS_NO_KV =
  'transformers.js 4.3.1 generate cannot run a graph without past: after the first step it feeds only the newest token (use_cache is not read)';

function peerFactories(ours: OurDecoderFactory | undefined): Record<GenerationPeer, PeerFactory> {
  return {
    ours: async (model, cache, threads) =>
      ours ? ((await ours(model, cache, threads)) ?? `our engine has no ${cache} mode`) : 'not wired in (bench/peers/ours-generate.ts)',
    [OURS_OWN_PAST]: async (model, cache, threads) => {
      if (cache === 'no-kv') return 'a graph without past has no past inputs of its own';
      return ours ? ((await ours(model, cache, threads, { decodeCache: false })) ?? 'our engine has no kv mode') : 'not wired in';
    },
    'transformers.js generate': async (model, cache, threads) => (cache === 'kv' ? createTransformersJsDecoder(model.kvDir, threads) : TRANSFORMERS_JS_NO_KV),
    'naive ORT-JS loop': (model, cache, threads) =>
      createNaiveOrtDecoder(cache === 'kv' ? model.kvPath : model.noPastPath, { withPast: cache === 'kv', threads }),
  };
}

export async function runGenerationBenchmark(options: GenerationOptions): Promise<GenerationResult> {
  const skipped: string[] = [];
  const rows: GenerationRow[] = [];
  const start = loadavg()[0] ?? Number.NaN;
  const factories = peerFactories(options.ours);
  for (const name of GENERATION_MODEL_NAMES) {
    const model = findGenerationModel(options.modelsDir, name);
    if ('missing' in model) {
      skipped.push(
        `${name}: ${model.missing} not found (build it: PYTHON scripts/bench/build_peer_models.py --out-root ${options.modelsDir} --only ${name}, ` +
          `then PYTHON scripts/bench/build_generation_models.py --out-root ${options.modelsDir} --only ${name})`,
      );
      continue;
    }
    const plan = options.quick ? QUICK_PLAN : PLANS[name];
    for (const peer of GENERATION_PEERS) {
      for (const cache of ['kv', 'no-kv'] as const) {
        const decoder = await factories[peer](model, cache, options.threads);
        if (typeof decoder === 'string') {
          skipped.push(`${name}, ${peer}, ${cache}: ${decoder}`);
          continue;
        }
        try {
          await decoder.decode(model.reference.prompts.slice(0, 1), 2); // warm-up: first-run allocations and kernel choice
          for (const batch of BATCHES) rows.push({ model: name, peer, cache, batch, ...(await measureDecoding(decoder, model.reference, batch, plan)) });
        } finally {
          await decoder.dispose();
        }
      }
    }
  }
  return { cpu: cpuInfo(), skipped, rows, loadAverage: { start, end: loadavg()[0] ?? Number.NaN } };
}
