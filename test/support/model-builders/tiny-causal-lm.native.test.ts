import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTinyCausalLm, TINY_LM_SPECIAL_TOKENS, writeTinyCausalLm, type PastConvention, type WriteTinyCausalLmOptions } from './tiny-causal-lm.js';
import { buildTinyTokenizerFiles } from './tiny-tokenizer.js';
import { createReferenceScorer } from '../reference-scorer.js';
import { referenceTinyLmLogits } from '../tiny-lm-forward.js';

const workDirectory = mkdtempSync(join(tmpdir(), 'mlrb-tiny-lm-'));
afterAll(() => rmSync(workDirectory, { recursive: true, force: true }));

let modelCounter = 0;
function writeModel(options: WriteTinyCausalLmOptions = {}): ReturnType<typeof writeTinyCausalLm> {
  return writeTinyCausalLm(join(workDirectory, `model-${modelCounter++}`), options);
}

const SEQUENCE = [5, 17, 40, 3, 63, 0, 22, 22, 9, 11, 36, 40];
const VOCAB = 64;

function maxAbsDifference(left: ArrayLike<number>, right: ArrayLike<number>): number {
  expect(left.length).toBe(right.length);
  let worst = 0;
  for (let index = 0; index < left.length; index++) worst = Math.max(worst, Math.abs(left[index]! - right[index]!));
  return worst;
}

/** Runs a right- or left-padded batch through ORT directly; returns logits per row [seq, vocab]. */
async function runPaddedBatch(session: ort.InferenceSession, rows: number[][], side: 'left' | 'right'): Promise<Float32Array[]> {
  const width = Math.max(...rows.map((row) => row.length));
  const ids: bigint[] = [];
  const mask: bigint[] = [];
  const positions: bigint[] = [];
  for (const row of rows) {
    const padding = width - row.length;
    const padded = side === 'right' ? [...row, ...Array(padding).fill(-1)] : [...Array(padding).fill(-1), ...row];
    padded.forEach((token: number, column) => {
      ids.push(BigInt(token < 0 ? TINY_LM_SPECIAL_TOKENS.pad : token));
      mask.push(token < 0 ? 0n : 1n);
      positions.push(BigInt(Math.max(0, side === 'right' ? column : column - padding)));
    });
  }
  const dims = [rows.length, width];
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(ids), dims),
    attention_mask: new ort.Tensor('int64', BigInt64Array.from(mask), dims),
  };
  if (session.inputNames.includes('position_ids')) feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from(positions), dims);
  const logits = (await session.run(feeds)).logits!.data as Float32Array;
  return rows.map((_, row) => logits.slice(row * width * VOCAB, (row + 1) * width * VOCAB));
}

describe('tiny causal LM fixture', () => {
  const combinations: WriteTinyCausalLmOptions[] = [];
  for (const idsType of ['int64', 'int32'] as const) {
    for (const pastConvention of ['none', 'optimum', 'gpt2'] as const) {
      for (const withAttentionMask of [true, false]) {
        for (const withPositionIds of [false, true]) {
          for (const withTokenTypeIds of [false, true]) {
            const logitsName = idsType === 'int32' && withTokenTypeIds ? 'output_0' : 'logits';
            combinations.push({ idsType, pastConvention, withAttentionMask, withPositionIds, withTokenTypeIds, logitsName });
          }
        }
      }
    }
  }

  it.each(combinations.map((options) => [JSON.stringify(options), options] as const))(
    'loads in ORT and matches the float64 forward: %s',
    async (_, options) => {
      const lm = writeModel(options);
      const scorer = await createReferenceScorer(lm.modelPath);
      try {
        expect(scorer.logitsName).toBe(options.logitsName);
        const logits = await scorer.logitsFor(SEQUENCE);
        expect([logits.rows, logits.vocabSize]).toEqual([SEQUENCE.length, VOCAB]);
        expect(maxAbsDifference(logits.data, referenceTinyLmLogits(lm.weights, lm.options, SEQUENCE))).toBeLessThan(1e-4);
      } finally {
        await scorer.dispose();
      }
    },
  );

  it('is deterministic for a seed and different for another seed', () => {
    expect(buildTinyCausalLm().bytes).toEqual(buildTinyCausalLm().bytes);
    expect(buildTinyCausalLm({ seed: 7 }).bytes).not.toEqual(buildTinyCausalLm().bytes);
  });

  it('gives well-spread log-probs', async () => {
    const scorer = await createReferenceScorer(writeModel().modelPath);
    const { data, rows } = await scorer.logitsFor(SEQUENCE);
    for (let row = 0; row < rows; row++) {
      const values = Array.from(data.subarray(row * VOCAB, (row + 1) * VOCAB));
      expect(Math.max(...values) - Math.min(...values)).toBeGreaterThan(5);
    }
    const score = await scorer.scoreTokens(SEQUENCE, SEQUENCE.slice(-3));
    expect(score.loglik).toBeLessThan(-1);
    expect(Number.isFinite(score.loglik)).toBe(true);
    await scorer.dispose();
  });

  it('is causal: a position ignores every later token', async () => {
    const scorer = await createReferenceScorer(writeModel().modelPath);
    const changed = [...SEQUENCE.slice(0, 6), ...SEQUENCE.slice(6).map((token) => (token + 1) % VOCAB)];
    const original = (await scorer.logitsFor(SEQUENCE)).data;
    const altered = (await scorer.logitsFor(changed)).data;
    expect(maxAbsDifference(original.subarray(0, 6 * VOCAB), altered.subarray(0, 6 * VOCAB))).toBeLessThan(1e-6);
    expect(maxAbsDifference(original.subarray(6 * VOCAB), altered.subarray(6 * VOCAB))).toBeGreaterThan(1e-2);
    await scorer.dispose();
  });

  const paddedRows = [SEQUENCE, SEQUENCE.slice(3, 7), [42]];
  it.each([
    ['right', {}],
    // Left padding only keeps valid rows intact if the key-padding mask works, so this case can fail.
    ['left', { withPositionIds: true }],
  ] as const)('%s-padded batch rows equal the unpadded rows at valid positions', async (side, options) => {
    const lm = writeModel(options);
    const session = await ort.InferenceSession.create(lm.modelPath);
    const batched = await runPaddedBatch(session, paddedRows, side);
    const width = SEQUENCE.length;
    for (const [index, row] of paddedRows.entries()) {
      const alone = (await runPaddedBatch(session, [row], side))[0]!;
      const start = side === 'right' ? 0 : (width - row.length) * VOCAB;
      const valid = batched[index]!.subarray(start, start + row.length * VOCAB);
      expect(maxAbsDifference(valid, alone)).toBeLessThan(1e-5);
    }
    await session.release();
  });

  it('gives identical logits with external data', async () => {
    const inline = writeModel();
    const external = writeModel({ externalData: true });
    const dataPath = join(external.modelPath, '..', 'model.onnx_data');
    expect(existsSync(dataPath)).toBe(true);
    expect(statSync(external.modelPath).size).toBeLessThan(statSync(dataPath).size);
    const logits = await Promise.all(
      [inline, external].map(async ({ modelPath }) => {
        const scorer = await createReferenceScorer(modelPath);
        const { data } = await scorer.logitsFor(SEQUENCE);
        await scorer.dispose();
        return data;
      }),
    );
    expect(logits[1]).toEqual(logits[0]);
  });

  it.each(['optimum', 'gpt2'] as const)('%s past: feeding present back as past reproduces full-sequence logits', async (convention: PastConvention) => {
    const lm = writeModel({ pastConvention: convention, withPositionIds: convention === 'optimum' });
    const session = await ort.InferenceSession.create(lm.modelPath);
    const heads = lm.options.numHeads;
    const headDim = lm.options.hiddenSize / heads;
    const run = async (tokens: number[], pastLength: number, past: Record<string, ort.Tensor>) => {
      const total = pastLength + tokens.length;
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
        ...past,
      };
      if (session.inputNames.includes('position_ids')) {
        feeds.position_ids = new ort.Tensor(
          'int64',
          BigInt64Array.from(tokens, (_, index) => BigInt(pastLength + index)),
          [1, tokens.length],
        );
      }
      return session.run(feeds);
    };
    const pastNames = session.inputNames.filter((name) => name.startsWith('past'));
    const presentNames = session.outputNames.filter((name) => name.startsWith('present'));
    expect(pastNames).toHaveLength(convention === 'optimum' ? 2 * lm.options.numLayers : lm.options.numLayers);
    const emptyDims = convention === 'optimum' ? [1, heads, 0, headDim] : [2, 1, heads, 0, headDim];
    const empty = Object.fromEntries(pastNames.map((name) => [name, new ort.Tensor('float32', new Float32Array(0), emptyDims)]));

    const full = await run(SEQUENCE, 0, empty);
    const split = 5;
    const prefix = await run(SEQUENCE.slice(0, split), 0, empty);
    const reused = Object.fromEntries(pastNames.map((name, index) => [name, prefix[presentNames[index]!]!]));
    expect(prefix[presentNames[0]!]!.dims).toEqual(convention === 'optimum' ? [1, heads, split, headDim] : [2, 1, heads, split, headDim]);
    const suffix = await run(SEQUENCE.slice(split), split, reused);
    const fullLogits = full.logits!.data as Float32Array;
    expect(maxAbsDifference(suffix.logits!.data as Float32Array, fullLogits.subarray(split * VOCAB))).toBeLessThan(1e-5);
    await session.release();
  });

  it('writes an HF-style config.json', () => {
    const lm = writeModel({ numLayers: 3, numHeads: 4, hiddenSize: 32 });
    const config = JSON.parse(readFileSync(join(lm.modelPath, '..', 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({
      vocab_size: 64,
      hidden_size: 32,
      num_hidden_layers: 3,
      num_attention_heads: 4,
      num_key_value_heads: 4,
      head_dim: 8,
      max_position_embeddings: 64,
      bos_token_id: 1,
      eos_token_id: 2,
    });
  });

  it('BAD CALL – rejects dimensions that do not fit', () => {
    expect(() => buildTinyCausalLm({ hiddenSize: 10, numHeads: 3 })).toThrow(RangeError);
    expect(() => buildTinyCausalLm({ numLayers: 0 })).toThrow(RangeError);
    expect(() => buildTinyCausalLm({ pastConvention: 'llama' as PastConvention })).toThrow(TypeError);
  });
});

describe('tiny tokenizer fixture', () => {
  const files = buildTinyTokenizerFiles();
  const tokenizer = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);

  it('round-trips text through @huggingface/tokenizers', () => {
    const text = 'the cat sat on the mat. they saw two big red dogs!';
    const encoded = tokenizer.encode(text);
    expect(encoded.tokens.slice(0, 3)).toEqual(['\u2581the', '\u2581cat', '\u2581sat']);
    expect(encoded.ids.every((id: number) => id >= 0 && id < VOCAB)).toBe(true);
    expect(encoded.ids).not.toContain(TINY_LM_SPECIAL_TOKENS.unk);
    expect(tokenizer.decode(encoded.ids)).toBe(text);
    expect(files.vocab.size).toBe(VOCAB);
  });

  it('maps special and unknown tokens as the model config says', () => {
    expect(tokenizer.token_to_id('<s>')).toBe(TINY_LM_SPECIAL_TOKENS.bos);
    expect(tokenizer.token_to_id('</s>')).toBe(TINY_LM_SPECIAL_TOKENS.eos);
    expect(tokenizer.token_to_id('<pad>')).toBe(TINY_LM_SPECIAL_TOKENS.pad);
    expect(tokenizer.encode('the #').ids).toContain(TINY_LM_SPECIAL_TOKENS.unk);
  });

  it('feeds the tiny model end to end (text → tokens → log-likelihood)', async () => {
    const lm = writeModel();
    const loaded = new Tokenizer(
      JSON.parse(readFileSync(join(lm.modelPath, '..', 'tokenizer.json'), 'utf8')) as object,
      JSON.parse(readFileSync(join(lm.modelPath, '..', 'tokenizer_config.json'), 'utf8')) as object,
    );
    const context = loaded.encode('the cat sat on the').ids;
    const continuation = loaded.encode(' mat').ids;
    const scorer = await createReferenceScorer(lm.modelPath);
    const whole = [...context, ...continuation];
    const score = await scorer.scoreTokens(whole.slice(0, -1), continuation);
    expect(score.loglik).toBeLessThan(0);
    expect(Number.isFinite(score.loglik)).toBe(true);
    await scorer.dispose();
  });
});
