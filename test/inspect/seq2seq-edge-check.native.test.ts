/**
 * `inspect` on an encoder-decoder export: parameters counted from storage over every graph (test/inspect/graph/seq2seq-parameters.native.test.ts
 * checks the count), config.json's figure beside it as information, the weight rules over every graph (one quantized or bfloat16 graph fails the model), and DRAM with every graph's weights
 * held at once, measured by loading the whole export.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkSeq2SeqEdgeModel } from '../../src/inspect/seq2seq-edge-check.js';
import { seq2seqFilesIn } from '../../src/model/seq2seq-files.js';
import { runCli } from '../support/run-cli.js';
import { readSeq2SeqExpectation, SEQ2SEQ_EXPORTS, seq2seqFolder, type RecordedGenerations } from '../support/seq2seq-fixtures.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

const filesOf = (folder: string) => {
  const files = seq2seqFilesIn(folder);
  if (files === null) throw new Error(`${folder} holds no encoder-decoder export`);
  return files;
};

describe('inspect, encoder-decoder exports', () => {
  it.each(SEQ2SEQ_EXPORTS)('%s (%s): config.json’s parameter count as information, every graph’s bytes, not quantized', async (name, layout) => {
    const report = await checkSeq2SeqEdgeModel(filesOf(seq2seqFolder(name, layout)), { measure: false });
    expect(report.parameters.config.total).toBe(readSeq2SeqExpectation<RecordedGenerations>(`${name}-generate.json`).numParameters);
    expect(report.parameters.config.tiedEmbeddings).toBe(name === 't5');
    expect(report.graphs.map((graph) => path.basename(graph.file))).toEqual(
      layout === 'nopast'
        ? ['encoder_model.onnx', 'decoder_model.onnx']
        : layout === 'past'
          ? ['encoder_model.onnx', 'decoder_model.onnx', 'decoder_with_past_model.onnx']
          : ['encoder_model.onnx', 'decoder_model_merged.onnx'],
    );
    expect(report.tensorBytes).toBe(report.graphs.reduce((total, graph) => total + graph.inspect.tensorBytes, 0));
    expect(report.dram.estimate.weightBytes).toBe(report.tensorBytes);
    expect(report.quantization.verdict.status).toBe('pass');
    expect(report.weightDtypes.verdict.status).toBe('pass');
    expect(report.verdict.status).toBe('pass');
  });

  it('one quantized graph fails the model', async () => {
    const folder = path.join(makeTempDir('seq2seq-inspect'), 'model');
    mkdirSync(folder);
    copyFileSync(path.join(seq2seqFolder('t5', 'nopast'), 'encoder_model.onnx'), path.join(folder, 'encoder_model.onnx'));
    copyFileSync(path.join(repoRoot, 'test/fixtures/hostile/tiny-qdq-int8.onnx'), path.join(folder, 'decoder_model.onnx'));
    const report = await checkSeq2SeqEdgeModel(filesOf(folder), { measure: false });
    expect(report.graphs.map((graph) => graph.quantization.verdict.status)).toEqual(['pass', 'fail']);
    expect(report.verdict.status).toBe('fail');
    expect(report.parameters.config.total).toBeNull(); // no config.json to read: said, not guessed
    expect(report.parameters.total).toBeGreaterThan(0); // the count is the stored values'
  });

  it('one bfloat16 graph fails the model on a track (the FP16/FP32 rule), and is a warning without one', async () => {
    const folder = path.join(makeTempDir('seq2seq-inspect'), 'model');
    mkdirSync(folder);
    copyFileSync(path.join(seq2seqFolder('t5', 'nopast'), 'encoder_model.onnx'), path.join(folder, 'encoder_model.onnx'));
    writeFileSync(path.join(folder, 'decoder_model.onnx'), gunzipSync(readFileSync(path.join(repoRoot, 'test/fixtures/edge/track/phi-bf16/model.onnx.gz'))));
    const onTrack = await checkSeq2SeqEdgeModel(filesOf(folder), { measure: false, track: 'edge-training' });
    expect(onTrack.graphs.map((graph) => graph.weightDtypes.verdict.status)).toEqual(['pass', 'fail']);
    expect(onTrack.quantization.verdict.status).toBe('pass'); // bfloat16 is no quantization
    expect(onTrack.verdict.status).toBe('fail');
    const plain = await checkSeq2SeqEdgeModel(filesOf(folder), { measure: false });
    expect(plain.weightDtypes.verdict.status).toBe('pass');
    expect(plain.weightDtypes.verdict.warnings.length).toBeGreaterThan(0);
  });

  it('measures DRAM by loading the whole export in a child process', async () => {
    const report = await checkSeq2SeqEdgeModel(filesOf(seq2seqFolder('flan-t5', 'merged')), { measure: true, contextTokens: 64 });
    expect(report.dram.measurementError).toBeNull();
    expect(report.dram.measurement?.tokens).toBe(64);
    expect(report.dram.measurement?.peakDeltaBytes).toBeGreaterThan(0);
    // The text probes read the export folder's own tokenizer.json.
    expect(report.dram.measurement?.text.tokenizer).toBe(path.join(seq2seqFolder('flan-t5', 'merged'), 'tokenizer.json'));
    expect(report.dram.measurement?.probes.length).toBeGreaterThan(1);
  });

  it('`mlrb-eval inspect FOLDER` reports the export as one model', async () => {
    const run = await runCli(['inspect', seq2seqFolder('flan-t5', 'past'), '--estimate-only']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/an encoder-decoder, optimum's with-past layout/);
    expect(run.stdout).toMatch(/Parameters: .* stored over 3 graphs .* LM head untied/);
    expect(run.stdout).toMatch(/config\.json says 29,776/);
    expect(run.stdout).toMatch(/decoder_with_past_model\.onnx: .* quantization pass/);
    expect(run.stdout).toMatch(/Verdict: PASS/);
    expect(run.stdout).not.toMatch(/position table/);
  });
});
