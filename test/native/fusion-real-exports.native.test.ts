/**
 * CPU attention fusion on graphs real exporters wrote (test/fixtures/fusion, built by
 * scripts/fusion/build_attention_corpus.py): seeded random GPT-2, Llama (grouped-query attention, rotary) and Phi
 * (partial rotary) from transformers, exported by TorchScript (sdpa and eager attention, opsets 14 to 18) and by
 * the dynamo exporter (opset 20), without and with past (optimum's KV-cache convention). For every model:
 *  - every attention block is fused (one per layer);
 *  - fused and unfused (cpuFusion: false) logliks are bit-identical where the kernel's rounding path is the MLAS family this CPU runs, where it rounds as
 *    ONNX Runtime's MLAS kernels do (sdpa's separate Q and K scales included: ORT folds them into one
 *    FusedMatMul alpha, and so does the fusion); elsewhere they agree within 1e-4 with the same greedy flags;
 *  - both agree within 1e-4 with transformers' float64 logliks, committed in the manifest.
 * Requests pad in batches, and four share a 36-token prefix, so with-past graphs run attention over
 * past + new keys. LM-head slicing and last-block row pruning apply to every model (pruning proves and rewrites
 * the Reshape targets these exports compute from Shape(input_ids), Shape(hidden) or Shape(attention_mask)); the
 * pruned graph's logliks equal those of the same graph with pruneLastBlock off: bit for bit, except on the dynamo
 * GPT-2 and Phi exports, where ORT optimises the two graphs differently (measured ≤ 9e-7, not traced to the op;
 * README, "Last-block row pruning"), within PRUNED_ROUNDING.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoglikelihoodResult } from '../../src/engine/model-input.js';
import type { ModelInput } from '../../src/engine/model-input.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { fusedRoundsAsOrt } from '../support/cpu-features.js';
import { LOGLIK_TOLERANCE } from '../support/expect-reference.js';
import { readRewriteOutcome, type RewriteOutcome } from '../support/rewrite-outcome.js';
import { makeTempDir } from '../support/temp-dirs.js';

interface CorpusModel {
  readonly file: string;
  readonly arch: 'gpt2' | 'llama' | 'phi';
  readonly exporter: string;
  readonly attention: 'sdpa' | 'eager';
  readonly opset: number;
  readonly withPast: boolean;
}

interface Manifest {
  readonly sizes: { readonly layers: number };
  readonly requests: readonly { readonly context: readonly number[]; readonly continuation: readonly number[] }[];
  readonly reference: Readonly<Record<CorpusModel['arch'], readonly LoglikelihoodResult[]>>;
  readonly models: readonly CorpusModel[];
  readonly skipped: readonly unknown[];
}

const fixtureDirectory = join(import.meta.dirname, '..', 'fixtures', 'fusion');
const manifest = JSON.parse(readFileSync(join(fixtureDirectory, 'manifest.json'), 'utf8')) as Manifest;
const workDir = makeTempDir('fusion-real');
/** lm-eval's model input: context + continuation without its last token; the logits of the last positions score the continuation. */
const inputs: ModelInput[] = manifest.requests.map((request) => ({
  inputTokens: [...request.context, ...request.continuation].slice(0, -1),
  continuationTokens: request.continuation,
}));

/** Models whose pruned logliks differ from unpruned ones in the last float bits (measured ≤ 9e-7). */
const PRUNED_ROUNDING = 1e-5;
const prunedRoundsDifferently = (model: CorpusModel): boolean => model.exporter === 'dynamo' && model.arch !== 'llama';

const name = (model: CorpusModel): string => `${model.arch} ${model.exporter} ${model.withPast ? 'with past' : 'no past'}`;

function unpack(model: CorpusModel): string {
  const path = join(workDir, model.file.replace(/\.gz$/, ''));
  writeFileSync(path, gunzipSync(readFileSync(join(fixtureDirectory, model.file))));
  return path;
}

function maxDifference(a: readonly LoglikelihoodResult[], b: readonly LoglikelihoodResult[]): number {
  return Math.max(...a.map((result, request) => Math.abs(result.loglik - (b[request]?.loglik ?? Number.NaN))));
}

function expectClose(actual: readonly LoglikelihoodResult[], expected: readonly LoglikelihoodResult[], what: string): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((result, request) => {
    expect(Math.abs(result.loglik - (expected[request]?.loglik ?? Number.NaN)), `${what}, request ${request}`).toBeLessThan(LOGLIK_TOLERANCE);
    expect(result.isGreedy, `${what}, request ${request} greedy`).toBe(expected[request]?.isGreedy);
  });
}

/** (model, fused blocks, |fused − unfused|, |fused − transformers|), printed with MLRB_PRINT_FUSION_TABLE=1. */
const table: string[] = [];
afterAll(() => {
  if (process.env['MLRB_PRINT_FUSION_TABLE'] === '1')
    console.info(['model | fused | max |fused − unfused| | max |fused − transformers| | slicing, pruning', ...table].join('\n'));
});

describe('CPU attention fusion on real exports (scripts/fusion/build_attention_corpus.py)', () => {
  it('has every corpus model the script meant to build', () => {
    expect(manifest.skipped).toEqual([]);
    expect(manifest.models).toHaveLength(30);
  });

  it.each(manifest.models.map((model) => [name(model), model] as const))(
    '%s: every attention block fused, the last block pruned; logliks as unfused, unpruned and transformers',
    async (_, model) => {
      const path = unpack(model);
      const fused = await loadModel({ model: path, threads: 1 });
      const plain = await loadModel({ model: path, threads: 1, cpuFusion: false });
      const unpruned = await loadModel({ model: path, threads: 1, rewrites: { pruneLastBlock: false } });
      try {
        const outcome: RewriteOutcome = readRewriteOutcome(fused.rewrites);
        expect(outcome.fusedAttentionBlocks, outcome.notes).toBe(manifest.sizes.layers);
        expect(outcome.softmaxBlocks, outcome.notes).toBe(manifest.sizes.layers);
        expect(fused.attentionFused).toBe(true);
        expect(plain.attentionFused).toBe(false);
        expect(fused.supportsPrefix).toBe(model.withPast);
        expect(outcome.lmHeadSliced, outcome.notes).toBe(true);
        expect(outcome.lastBlockPruned, outcome.notes).toBe(true);
        expect(readRewriteOutcome(unpruned.rewrites).lastBlockPruned).toBe(false);

        const fusedOutput = await scoreModelInputs(fused, inputs);
        const fusedResults = fusedOutput.results;
        // With past, the shared prefix runs once and its rows continue it: keys outnumber queries there.
        expect(fusedOutput.stats.prefixGroups).toBe(model.withPast ? 1 : 0);
        const plainResults = (await scoreModelInputs(plain, inputs)).results;
        // Pruning changes which rows the last block computes, not how it computes each: the same logliks.
        const unprunedResults = (await scoreModelInputs(unpruned, inputs)).results;
        if (prunedRoundsDifferently(model)) {
          expect(maxDifference(fusedResults, unprunedResults)).toBeLessThan(PRUNED_ROUNDING);
          expect(fusedResults.map((result) => result.isGreedy)).toEqual(unprunedResults.map((result) => result.isGreedy));
        } else {
          expect(fusedResults).toEqual(unprunedResults);
        }
        const reference = manifest.reference[model.arch];
        // The fusion, alone (pruning off), against the unfused graph.
        if (fusedRoundsAsOrt) {
          expect(unprunedResults).toEqual(plainResults);
        } else {
          expectClose(unprunedResults, plainResults, 'fused vs unfused');
        }
        expectClose(fusedResults, reference, 'fused vs transformers');
        expectClose(plainResults, reference, 'unfused vs transformers');
        table.push(
          `${name(model)} | ${outcome.fusedAttentionBlocks}/${outcome.softmaxBlocks} | ${maxDifference(fusedResults, plainResults).toExponential(1)} | ` +
            `${maxDifference(fusedResults, reference).toExponential(1)} | ${outcome.lmHeadSliced ? 'sliced' : 'not sliced'}, ${outcome.lastBlockPruned ? 'pruned' : 'not pruned'}`,
        );
      } finally {
        fused.dispose();
        plain.dispose();
        unpruned.dispose();
      }
    },
  );
});
