import { describe, expect, it } from 'vitest';
import { encodeRequest, encodingRulesFor, type RuleTokenizer } from '../../src/eval/request-encoding.js';
import { modelInputFor } from '../../src/engine/model-input.js';
import { planBatches, planRows, packBatch } from '../../src/engine/collator.js';

// A toy greedy longest-match tokenizer, so merges across the context/continuation boundary can be
// worked out by hand: "a b" is ["a", " b"], not ["a", " ", "b"]. "<s>" (42) is its BOS; like a Hugging Face
// tokenizer it is split out of a text as one token.
const VOCAB: Record<string, number> = { a: 1, b: 2, ' ': 3, ' b': 4, ab: 5, '\n': 6, c: 7, ' c': 8, bc: 9, '<s>': 42 };
function encode(text: string): number[] {
  const ids: number[] = [];
  for (let at = 0; at < text.length; ) {
    let match = '';
    for (const piece of Object.keys(VOCAB)) if (text.startsWith(piece, at) && piece.length > match.length) match = piece;
    if (!match) throw new Error(`untokenizable at ${at}`);
    ids.push(VOCAB[match] as number);
    at += match.length;
  }
  return ids;
}
/** A Llama-style tokenizer: its post-processor puts BOS first when special tokens are added. */
const addsBos: RuleTokenizer = { encode, encodeWithSpecialTokens: (text) => [42, ...encode(text)], tokenText: (id) => (id === 42 ? '<s>' : '?') };
/** A GPT-2-style tokenizer: adding special tokens adds nothing. */
const addsNothing: RuleTokenizer = { ...addsBos, encodeWithSpecialTokens: encode };
const prefix42 = () => 42;
const rules = encodingRulesFor('0.4.4-0.4.8', addsBos, prefix42);
const rules0413 = encodingRulesFor('0.4.13', addsBos, prefix42);

describe('lm-eval request encoding (v0.4.4–v0.4.8)', () => {
  it('moves the context trailing whitespace to the continuation', () => {
    // context "a " + continuation "b": whole "a b" = [a, " b"]; ctx "a" = [a]; cont = [" b"].
    expect(encodeRequest({ context: 'a ', continuation: 'b' }, rules)).toEqual({ contextTokens: [1], continuationTokens: [4] });
  });

  it('moves several whitespace characters, newline included', () => {
    // "a\n " + "c" → ctx "a" [1], whole "a\n c" = [a, \n, " c"] → cont [6, 8].
    expect(encodeRequest({ context: 'a\n ', continuation: 'c' }, rules)).toEqual({ contextTokens: [1], continuationTokens: [6, 8] });
  });

  it('takes the continuation from the whole encoding, never alone', () => {
    // ctx "b", cont "c": whole "bc" merges to [bc]=9, ctx [b]=2 → cont = whole[1:] = [] (lm-eval's result);
    // alone, "c" would be [7]. With ctx "a", cont " bc": whole "a bc" = [a, " b", c] → cont [4, 7].
    expect(encodeRequest({ context: 'b', continuation: 'c' }, rules).continuationTokens).toEqual([]);
    expect(encodeRequest({ context: 'a', continuation: ' bc' }, rules)).toEqual({ contextTokens: [1], continuationTokens: [4, 7] });
  });

  it('uses the prefix token for an empty context', () => {
    expect(encodeRequest({ context: '', continuation: ' b' }, rules)).toEqual({ contextTokens: [42], continuationTokens: [4] });
  });

  it('puts the prefix token before a continuation that starts with it, as TemplateLM.loglikelihood did', () => {
    expect(encodeRequest({ context: '', continuation: '<s>a' }, rules)).toEqual({ contextTokens: [42], continuationTokens: [42, 1] });
  });

  it('looks the prefix token up only for an empty context', () => {
    const noPrefix = encodingRulesFor('0.4.4-0.4.8', addsBos, () => {
      throw new Error('no BOS or EOS');
    });
    expect(encodeRequest({ context: 'a ', continuation: 'b' }, noPrefix)).toEqual({ contextTokens: [1], continuationTokens: [4] });
  });
});

describe('lm-eval request encoding (v0.4.13)', () => {
  it('lets the tokenizer add BOS to the context; the continuation is unchanged', () => {
    expect(encodeRequest({ context: 'a ', continuation: 'b' }, rules0413)).toEqual({ contextTokens: [42, 1], continuationTokens: [4] });
    expect(encodeRequest({ context: 'b', continuation: 'c' }, rules0413)).toEqual({ contextTokens: [42, 2], continuationTokens: [] });
  });

  it('adds nothing for a tokenizer that adds no special tokens (GPT-2 style)', () => {
    const gpt2 = encodingRulesFor('0.4.13', addsNothing, prefix42);
    expect(encodeRequest({ context: 'a\n ', continuation: 'c' }, gpt2)).toEqual({ contextTokens: [1], continuationTokens: [6, 8] });
  });

  it('encodes a text that starts with the BOS text without special tokens (no second BOS)', () => {
    expect(encodeRequest({ context: '<s>a', continuation: ' b' }, rules0413)).toEqual({ contextTokens: [42, 1], continuationTokens: [4] });
  });

  it('gives a leading prefix token of the continuation to an empty context', () => {
    expect(encodeRequest({ context: '', continuation: '<s>a' }, rules0413)).toEqual({ contextTokens: [42], continuationTokens: [1] });
    expect(encodeRequest({ context: '', continuation: ' b' }, rules0413)).toEqual({ contextTokens: [42], continuationTokens: [4] });
  });
});

describe('model input', () => {
  it('truncates from the left to max length and drops the last token', () => {
    const input = modelInputFor({ contextTokens: [1, 2, 3, 4, 5], continuationTokens: [6, 7] }, 4, () => 'r');
    // all = [1..7]; [-(4+1):] = [3,4,5,6,7]; [:-1] = [3,4,5,6]
    expect(input.inputTokens).toEqual([3, 4, 5, 6]);
    expect(modelInputFor({ contextTokens: [1], continuationTokens: [6, 7] }, 10, () => 'r').inputTokens).toEqual([1, 6]);
  });

  it('EXPECTED FAILURE – an empty continuation or one longer than max length', () => {
    expect(() => modelInputFor({ contextTokens: [1], continuationTokens: [] }, 4, () => 'task x doc 3')).toThrow(/task x doc 3.*no tokens/);
    expect(() => modelInputFor({ contextTokens: [1], continuationTokens: [1, 2, 3] }, 2, () => 'r')).toThrow(/more than the model's max length 2/);
  });
});

describe('collator', () => {
  const inputs = [
    { inputTokens: [1, 2, 3], continuationTokens: [4] },
    { inputTokens: [1, 2, 3], continuationTokens: [5] },
    { inputTokens: [9], continuationTokens: [8] },
    { inputTokens: [1, 2, 3, 4, 5], continuationTokens: [6, 7] },
    { inputTokens: [1, 2, 3], continuationTokens: [2, 3] },
  ];

  it('shares one row between requests with the same input, longest rows first', () => {
    const rows = planRows(inputs);
    expect(rows.map((row) => row.tokens)).toEqual([[1, 2, 3, 4, 5], [1, 2, 3], [9]]);
    expect(rows.map((row) => row.requestIndices)).toEqual([[3], [0, 1, 4], [2]]);
  });

  it('fills batches while the size rule allows', () => {
    const rows = planRows(inputs);
    expect(planBatches(rows, (count) => count <= 2).map((batch) => batch.length)).toEqual([2, 1]);
    // padded-token budget of 9: [5-row] then [3,3 → 2*5=10 > 9] → split.
    expect(planBatches(rows, (count, length) => count * length <= 9).map((batch) => batch.length)).toEqual([1, 2]);
  });

  it('packs rows and targets into the native layout', () => {
    const rows = planRows(inputs);
    const { batch, requestIndices, inputTokenCount } = packBatch(rows.slice(0, 2), inputs);
    expect([...batch.tokens]).toEqual([1, 2, 3, 4, 5, 1, 2, 3]);
    expect([...batch.rowOffsets]).toEqual([0, 5, 8]);
    expect([...batch.requestRows]).toEqual([0, 1, 1, 1]);
    expect([...requestIndices]).toEqual([3, 0, 1, 4]);
    expect([...batch.targets]).toEqual([6, 7, 4, 5, 2, 3]);
    expect([...batch.targetOffsets]).toEqual([0, 2, 3, 4, 6]);
    expect(inputTokenCount).toBe(8);
  });
});
