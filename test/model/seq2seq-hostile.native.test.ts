/**
 * EXPECTED FAILURE – encoder-decoder exports that are incomplete, mislabelled or crafted, and bad calls into the
 * encoder-decoder session: each is refused with a typed error that names the file (or the request), never loaded
 * as whatever graph happens to be there and never a crash.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSeq2SeqEdgeModel } from '../../src/inspect/seq2seq-edge-check.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { seq2seqFilesIn } from '../../src/model/seq2seq-files.js';
import { GENERATE_FIXTURES } from '../support/generation-fixtures.js';
import { writeIdentityChainModel } from '../support/odd-models.js';
import { refusedWith } from '../support/expect-mlrb-error.js';
import { seq2seqFolder } from '../support/seq2seq-fixtures.js';
import { makeTempDir } from '../support/temp-dirs.js';

const SIDE_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

/** A model folder holding the named files of a fixture export (`as` renames them), with its side files. */
function exportFolder(files: Record<string, string>, configEdit?: (config: Record<string, unknown>) => void): string {
  const dir = path.join(makeTempDir('seq2seq-hostile'), 'model');
  mkdirSync(dir);
  for (const side of SIDE_FILES) copyFileSync(path.join(seq2seqFolder('t5', 'past'), side), path.join(dir, side));
  for (const [name, source] of Object.entries(files)) copyFileSync(source, path.join(dir, name));
  if (configEdit) {
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    configEdit(config);
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  }
  return dir;
}

const past = (file: string): string => path.join(seq2seqFolder('t5', 'past'), file);
const nopast = (file: string): string => path.join(seq2seqFolder('t5', 'nopast'), file);

describe('EXPECTED FAILURE – half and mislabelled exports', () => {
  it('an encoder without a decoder', async () => {
    const dir = exportFolder({ 'encoder_model.onnx': past('encoder_model.onnx') });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/part of an encoder-decoder export \(encoder_model\.onnx\) but no decoder/);
  });

  it('a decoder with past without the decoder it continues', async () => {
    const dir = exportFolder({ 'encoder_model.onnx': past('encoder_model.onnx'), 'decoder_with_past_model.onnx': past('decoder_with_past_model.onnx') });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/no decoder_model\.onnx for decoder_with_past_model\.onnx to continue/);
  });

  it('a decoder with past beside a decoder that outputs no presents', async () => {
    const dir = exportFolder({
      'encoder_model.onnx': past('encoder_model.onnx'),
      'decoder_model.onnx': nopast('decoder_model.onnx'),
      'decoder_with_past_model.onnx': past('decoder_with_past_model.onnx'),
    });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/decoder_model\.onnx has no present\..* outputs/);
  });

  it('a decoder saved as the encoder', async () => {
    const dir = exportFolder({ 'encoder_model.onnx': nopast('decoder_model.onnx'), 'decoder_model.onnx': nopast('decoder_model.onnx') });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/encoder_model\.onnx: the input encoder_attention_mask is not one an encoder is fed/);
    expect(error.message).toMatch(/The graph has inputs \[/);
  });

  it('a causal LM saved as the decoder', async () => {
    const dir = exportFolder({ 'encoder_model.onnx': past('encoder_model.onnx'), 'decoder_model.onnx': path.join(GENERATE_FIXTURES, 'llama-nopast.onnx') });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/decoder_model\.onnx: the input attention_mask is not one an encoder-decoder's decoder is fed/);
  });

  it('the decoder with past given as the first decoder (and no encoder_hidden_states)', async () => {
    const dir = exportFolder({ 'encoder_model.onnx': past('encoder_model.onnx'), 'decoder_model.onnx': past('decoder_with_past_model.onnx') });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/no encoder_hidden_states input/);
  });

  it('a Git LFS pointer where the encoder should be', async () => {
    const dir = exportFolder({ 'decoder_model.onnx': nopast('decoder_model.onnx') });
    writeFileSync(path.join(dir, 'encoder_model.onnx'), 'version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n');
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/encoder_model\.onnx is a Git LFS pointer/);
  });
});

describe('EXPECTED FAILURE – the load budget (native/onnx/graph_budget.h) holds for every graph of an export', () => {
  // 300,001 Identity nodes (9 MB): one over the node cap, refused after one pass over the metadata.
  const overBudget = writeIdentityChainModel(path.join(makeTempDir('seq2seq-budget'), 'chain'), 300_001);
  const refusal = (file: string): RegExp => new RegExp(`${file.replace('.', '\\.')} has more than 300,000 nodes`);

  it.each([
    ['encoder_model.onnx', { 'encoder_model.onnx': overBudget, 'decoder_model.onnx': nopast('decoder_model.onnx') }],
    [
      'decoder_with_past_model.onnx',
      { 'encoder_model.onnx': past('encoder_model.onnx'), 'decoder_model.onnx': past('decoder_model.onnx'), 'decoder_with_past_model.onnx': overBudget },
    ],
  ])('an over-budget %s: scoring and inspect refuse it by name', async (file, files) => {
    const dir = exportFolder(files);
    const loading = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(loading.message).toMatch(refusal(file));
    const inspecting = await refusedWith('BAD_MODEL', checkSeq2SeqEdgeModel(seq2seqFilesIn(dir)!, { measure: false }));
    expect(inspecting.message).toMatch(refusal(file));
  });
});

describe('EXPECTED FAILURE – config.json that contradicts the files', () => {
  const graphs = { 'encoder_model.onnx': nopast('encoder_model.onnx'), 'decoder_model.onnx': nopast('decoder_model.onnx') };

  it('is_encoder_decoder false beside an encoder-decoder export', async () => {
    const dir = exportFolder(graphs, (config) => {
      config['is_encoder_decoder'] = false;
    });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/says is_encoder_decoder false/);
  });

  it('no decoder_start_token_id', async () => {
    const dir = exportFolder(graphs, (config) => {
      delete config['decoder_start_token_id'];
    });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/does not state decoder_start_token_id/);
  });

  it('a decoder_start_token_id that is not a token id', async () => {
    const dir = exportFolder(graphs, (config) => {
      config['decoder_start_token_id'] = -1;
    });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/decoder_start_token_id is invalid/);
  });

  it('is_encoder_decoder true beside a single causal graph', async () => {
    const dir = exportFolder({ 'model.onnx': path.join(GENERATE_FIXTURES, 'llama-nopast.onnx') });
    const error = await refusedWith('BAD_MODEL', loadModel({ model: dir }));
    expect(error.message).toMatch(/says the model is an encoder-decoder .* no encoder_model\.onnx/);
  });
});

describe('BAD CALL – the encoder-decoder session', () => {
  it('refuses batches it cannot run with BAD_DATA, and dispose() while a pass runs with BUSY', async () => {
    const model = await loadModel({ model: seq2seqFolder('t5', 'past'), onLog: () => {} });
    try {
      const batch = (fields: Record<string, Int32Array>) => ({
        tokens: Int32Array.from([5, 6, 1]),
        rowOffsets: Int32Array.from([0, 3]),
        requestRows: Int32Array.from([0]),
        targets: Int32Array.from([7, 8]),
        targetOffsets: Int32Array.from([0, 2]),
        ...fields,
      });
      await refusedWith('BAD_DATA', model.scoreBatch(batch({ requestRows: Int32Array.from([1]) })));
      await refusedWith('BAD_DATA', model.scoreBatch(batch({ targets: Int32Array.from([7, 100000]) })));
      await refusedWith('BAD_DATA', model.scoreBatch(batch({ tokens: Int32Array.from([5, -1, 1]) })));
      await refusedWith('BAD_DATA', model.scoreBatch(batch({ targetOffsets: Int32Array.from([0, 0]), targets: new Int32Array(0) })));
      await refusedWith('BAD_DATA', model.scoreBatch(batch({ requestEnds: Int32Array.from([2]) })));
      await refusedWith('BAD_MODEL', model.computePrefix([5, 6]));
      const running = model.scoreBatch(batch({}));
      expect(() => model.dispose()).toThrow(expect.objectContaining({ code: 'BUSY' }));
      const scores = await running;
      expect(scores.logliks).toHaveLength(1);
      expect(() =>
        model.startGeneration({
          tokens: Int32Array.from([5, 100000]),
          promptOffsets: Int32Array.from([0, 2]),
          streams: Int32Array.from([0]),
          maxNewTokens: 2,
          eosTokenIds: new Int32Array(0),
        }),
      ).toThrow(expect.objectContaining({ code: 'BAD_DATA' }));
    } finally {
      model.dispose();
    }
  });
});
