/**
 * An encoder-decoder export's parameters counted from storage over all its graphs, a tensor the graphs repeat (the
 * shared embedding, the decoder's weights in the decoder with past, the merged decoder's branches) counted once where
 * its bytes show it is the same. The reference is scripts/seq2seq/stored_parameters.py (onnx and numpy), which also
 * ties each count to transformers' num_parameters() of the checkpoint the export was made from (recorded by
 * record_lm_eval.py): every checkpoint parameter is held by exactly one counted tensor, and the rest are shape
 * constants and epsilons no checkpoint has. Before, the count was config.json's formula, whatever the graphs held.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSeq2SeqEdgeModel } from '../../../src/inspect/seq2seq-edge-check.js';
import { seq2seqFilesIn } from '../../../src/model/seq2seq-files.js';
import { readSeq2SeqExpectation, SEQ2SEQ_EXPORTS, seq2seqFolder, type RecordedGenerations, type Seq2SeqModelName } from '../../support/seq2seq-fixtures.js';
import { makeTempDir } from '../../support/temp-dirs.js';

interface StoredParameters {
  readonly numParameters: number;
  readonly layouts: Readonly<Record<string, { readonly storedElements: number; readonly otherElements: number; readonly copies: number }>>;
}
const reference = readSeq2SeqExpectation<Record<Seq2SeqModelName, StoredParameters>>('stored-parameters.json');

const inspectFolder = async (folder: string) => {
  const files = seq2seqFilesIn(folder);
  if (files === null) throw new Error(`${folder} holds no encoder-decoder export`);
  return (await checkSeq2SeqEdgeModel(files, { measure: false })).parameters;
};

/** A copy of a fixture export whose config.json `edit` rewrites. */
function withConfig(name: Seq2SeqModelName, edit: (config: Record<string, unknown>) => void): string {
  const folder = path.join(makeTempDir('seq2seq-parameters'), 'model');
  cpSync(seq2seqFolder(name, 'nopast'), folder, { recursive: true });
  const config = JSON.parse(readFileSync(path.join(folder, 'config.json'), 'utf8')) as Record<string, unknown>;
  edit(config);
  writeFileSync(path.join(folder, 'config.json'), JSON.stringify(config));
  return folder;
}

describe('encoder-decoder parameters, counted from storage over every graph', () => {
  it.each(SEQ2SEQ_EXPORTS)('%s (%s): stored_elements of the export = num_parameters() + its constants', async (name, layout) => {
    const recorded = readSeq2SeqExpectation<RecordedGenerations>(`${name}-generate.json`).numParameters;
    const expected = reference[name].layouts[layout]!;
    expect(reference[name].numParameters).toBe(recorded); // the same checkpoint as the scoring comparisons
    const parameters = await inspectFolder(seq2seqFolder(name, layout));
    expect(parameters.total).toBe(expected.storedElements);
    expect(parameters.total - expected.otherElements).toBe(recorded);
    expect(parameters.copies).toHaveLength(expected.copies);
    // t5's head is the embedding (stored transposed in the decoder), Flan-T5's its own.
    expect(parameters.tiedEmbeddings).toBe(name === 't5' ? 'duplicate' : 'untied');
    expect(parameters.config.total).toBe(recorded); // an honest config.json agrees, and is information only
  });

  it("t5's head, the embedding stored transposed in the decoder, counts once; Flan-T5's own head counts", async () => {
    const t5 = await inspectFolder(seq2seqFolder('t5', 'nopast'));
    expect(t5.copies).toContainEqual({
      tensor: 'decoder_model.onnx/onnx::MatMul_688',
      copies: 'encoder_model.onnx/encoder.embed_tokens.weight',
      elements: 416 * 16,
    });
    const flan = await inspectFolder(seq2seqFolder('flan-t5', 'nopast'));
    expect(flan.copies.map((copy) => copy.tensor)).not.toContain('decoder_model.onnx/onnx::MatMul_1001');
    expect(flan.copies).toContainEqual({
      tensor: 'decoder_model.onnx/model.shared.weight',
      copies: 'encoder_model.onnx/encoder.embed_tokens.weight',
      elements: 416 * 16,
    });
  });

  it('EXPECTED FAILURE – a config.json claiming other sizes is reported, not counted', async () => {
    const folder = withConfig('t5', (config) =>
      Object.assign(config, { d_model: 512, d_ff: 2048, num_layers: 6, num_decoder_layers: 6, num_heads: 8, vocab_size: 32128 }),
    );
    const parameters = await inspectFolder(folder);
    expect(parameters.total).toBe(reference.t5.layouts['nopast']!.storedElements);
    expect(parameters.config.total).toBeGreaterThan(30_000_000);
  });

  it('EXPECTED FAILURE – a config.json calling an untied head tied does not remove it', async () => {
    const folder = withConfig('flan-t5', (config) => Object.assign(config, { tie_word_embeddings: true }));
    const parameters = await inspectFolder(folder);
    expect(parameters.total).toBe(reference['flan-t5'].layouts['nopast']!.storedElements);
    expect(parameters.tiedEmbeddings).toBe('untied');
  });

  it('without a config.json the count stands, and the config figure says why it is missing', async () => {
    const folder = withConfig('t5', () => undefined);
    writeFileSync(path.join(folder, 'config.json'), '{ not json');
    const parameters = await inspectFolder(folder);
    expect(parameters.total).toBe(reference.t5.layouts['nopast']!.storedElements);
    expect(parameters.config).toMatchObject({ total: null, source: expect.stringMatching(/^not counted: /) });
  });
});
