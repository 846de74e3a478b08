/** Every way a caller or a file can be wrong ends in a typed error with context, never a crash. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MlrbError } from '../../src/errors.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { loadModel, type LanguageModel } from '../../src/model/onnx-model.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { loadBinding, type PackedBatch } from '../../src/native/binding.js';
import { writeNanLogitsModel, writeNoLogitsModel, writeUnknownInputModel } from '../support/odd-models.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-bad-'));
let tinyModelPath = '';
let model: LanguageModel;

beforeAll(async () => {
  tinyModelPath = writeTinyCausalLm(path.join(workDir, 'tiny')).modelPath;
  model = await loadModel({ model: tinyModelPath });
});
afterAll(() => {
  model.dispose();
  rmSync(workDir, { recursive: true, force: true });
});

async function loadError(modelPath: string): Promise<MlrbError> {
  const error: unknown = await loadModel({ model: modelPath }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MlrbError);
  return error as MlrbError;
}

const validBatch = (): PackedBatch => ({
  tokens: Int32Array.from([4, 5, 6]),
  rowOffsets: Int32Array.from([0, 3]),
  requestRows: Int32Array.from([0]),
  targets: Int32Array.from([7]),
  targetOffsets: Int32Array.from([0, 1]),
});

describe('EXPECTED FAILURE – unusable model files', () => {
  it('a missing file', async () => {
    const error = await loadError(path.join(workDir, 'nope.onnx'));
    expect(error.code).toBe('BAD_MODEL');
    expect(error.message).toContain('nope.onnx');
  });

  it('a corrupt file', async () => {
    const file = path.join(workDir, 'corrupt.onnx');
    writeFileSync(file, Buffer.from('this is not a protobuf at all \u0000\u00ff\u00fe'));
    const error = await loadError(file);
    expect(error.code).toBe('BAD_MODEL');
    expect(error.message).toContain('corrupt.onnx');
  });

  it('a truncated file', async () => {
    const file = path.join(workDir, 'truncated', 'model.onnx');
    writeTinyCausalLm(path.dirname(file));
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const error = await loadError(file);
    expect(error.code).toBe('BAD_MODEL');
  });

  it('a graph without a logits output lists what it has', async () => {
    const error = await loadError(writeNoLogitsModel(path.join(workDir, 'nologits')));
    expect(error.code).toBe('BAD_MODEL');
    expect(error.message).toMatch(/no output is named logits/);
    expect(error.message).toContain('scores: float32[batch, sequence]');
  });

  it('a graph with an input the scorer cannot feed', async () => {
    const error = await loadError(writeUnknownInputModel(path.join(workDir, 'unknown-input')));
    expect(error.code).toBe('BAD_MODEL');
    expect(error.message).toContain('pixel_values');
  });
});

describe('EXPECTED FAILURE – bad scoring calls', () => {
  it('NaN logits reject with NUMERIC and name the request', async () => {
    const nanModel = await loadModel({ model: writeNanLogitsModel(path.join(workDir, 'nan')) });
    const failure = scoreModelInputs(nanModel, [{ inputTokens: [0, 1], continuationTokens: [2] }], { batchSize: 1 });
    await expect(failure).rejects.toMatchObject({ code: 'NUMERIC', message: expect.stringMatching(/NaN or Inf for request 0/) });
    nanModel.dispose();
  });

  it('a token id outside the vocabulary is named', async () => {
    const failure = scoreModelInputs(model, [{ inputTokens: [4, 999], continuationTokens: [5] }]);
    await expect(failure).rejects.toMatchObject({ code: 'BAD_DATA', message: expect.stringMatching(/token id 999 .* vocabulary of 64/) });
  });

  it('the native layer re-checks a malformed batch', async () => {
    const session = (model as unknown as { session: { score(batch: PackedBatch): Promise<unknown> } }).session;
    await expect(session.score({ ...validBatch(), rowOffsets: Int32Array.from([0, 2]) })).rejects.toMatchObject({ code: 'BAD_DATA' });
    await expect(session.score({ ...validBatch(), requestRows: Int32Array.from([3]) })).rejects.toMatchObject({
      code: 'BAD_DATA',
      message: expect.stringMatching(/row 3, which does not exist/),
    });
    await expect(session.score({ ...validBatch(), targets: Int32Array.from([64]) })).rejects.toMatchObject({ code: 'BAD_DATA' });
  });

  it('wrong argument types throw TypeError synchronously', () => {
    const session = (model as unknown as { session: { score(batch: unknown): Promise<unknown> } }).session;
    expect(() => session.score({ ...validBatch(), tokens: [4, 5, 6] })).toThrow(TypeError);
    expect(() => session.score(undefined)).toThrow(TypeError);
  });

  it('dispose is refused while a run is active, and a disposed session refuses work', async () => {
    const own = await loadModel({ model: tinyModelPath });
    const running = own.scoreBatch(validBatch());
    expect(() => own.dispose()).toThrow(expect.objectContaining({ code: 'BUSY' }));
    await running;
    own.dispose();
    await expect(own.scoreBatch(validBatch())).rejects.toMatchObject({ code: 'DISPOSED' });
  });

  it('bad options are argument errors', async () => {
    await expect(loadModel({ model: tinyModelPath, threads: -1 })).rejects.toThrow(RangeError);
    await expect(loadModel({ model: tinyModelPath, maxLength: 0 })).rejects.toThrow(RangeError);
    await expect(loadModel({ model: tinyModelPath, cpuFusion: 'yes' as never })).rejects.toThrow(/cpuFusion must be a boolean/);
  });

  it('initializer overrides replace a tensor in the loaded graph only: a zero LM head gives every token log(1/vocab)', async () => {
    const { hiddenSize, vocabSize } = { hiddenSize: model.metadata.hiddenSize!, vocabSize: model.vocabSize! };
    const zeroHead = { name: 'lm_head.weight', elementType: 1, dims: [hiddenSize, vocabSize], data: new Uint8Array(hiddenSize * vocabSize * 4) };
    const overridden = await loadModel({ model: tinyModelPath, initializerOverrides: [zeroHead] });
    try {
      const scores = await overridden.scoreBatch(validBatch());
      expect(scores.logliks[0]).toBeCloseTo(-Math.log(vocabSize), 5);
      expect((await model.scoreBatch(validBatch())).logliks[0]).not.toBeCloseTo(-Math.log(vocabSize), 3); // the file is unchanged
    } finally {
      overridden.dispose();
    }
  });

  it('BAD CALL – initializer overrides are checked before any work; a name the graph does not hold is BAD_MODEL', async () => {
    const load = (overrides: unknown) => loadBinding().loadSession(tinyModelPath, { initializerOverrides: overrides as never });
    const tensor = { name: 'lm_head.weight', elementType: 1, dims: [2, 2], data: new Uint8Array(16) };
    expect(() => load(tensor)).toThrow(new TypeError('options.initializerOverrides must be an array'));
    expect(() => load([{ ...tensor, name: '' }])).toThrow(new TypeError('options.initializerOverrides[0].name must be a non-empty string'));
    expect(() => load([{ ...tensor, elementType: 7 }])).toThrow(
      new RangeError('options.initializerOverrides[0].elementType must be 1 (float), 10 (float16) or 16 (bfloat16)'),
    );
    expect(() => load([{ ...tensor, dims: [2, -1] }])).toThrow(new RangeError('options.initializerOverrides[0].dims must hold integers in [0, 2^30]'));
    expect(() => load([{ ...tensor, data: new Float32Array(4) }])).toThrow(new TypeError('options.initializerOverrides[0].data must be a Uint8Array'));
    expect(() => load([{ ...tensor, data: new Uint8Array(15) }])).toThrow(
      new RangeError('options.initializerOverrides[0].data holds 15 bytes; its dims and type need 16'),
    );
    await expect(loadModel({ model: tinyModelPath, initializerOverrides: [{ ...tensor, name: 'no.such.tensor' }] })).rejects.toMatchObject({
      code: 'BAD_MODEL',
      message: expect.stringContaining("the graph has no initializer named 'no.such.tensor' to replace"),
    });
  });

  it("BAD CALL – the rewrites object is checked against the addon's pass list", async () => {
    const load = (rewrites: unknown) => loadBinding().loadSession(tinyModelPath, { rewrites: rewrites as never });
    expect(() => load('cpuFusion')).toThrow(
      new TypeError('options.rewrites must be an object of booleans by pass name (cpuFusion, sliceLmHead, pruneLastBlock, decodeCache)'),
    );
    expect(() => load(['cpuFusion'])).toThrow(TypeError);
    expect(() => load({ cpuFuson: false })).toThrow(
      new TypeError('options.rewrites.cpuFuson is not a rewrite; the rewrites are cpuFusion, sliceLmHead, pruneLastBlock, decodeCache'),
    );
    expect(() => load({ pruneLastBlock: 1 })).toThrow(new TypeError('options.rewrites.pruneLastBlock must be a boolean'));
    await expect(scoreModelInputs(model, [{ inputTokens: [4], continuationTokens: [5] }], { batchSize: 0 })).rejects.toThrow(RangeError);
  });
});
