/** Small hand-built graphs that a scorer must refuse or flag, built with the project's ONNX writer. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTensor, writeModelFiles, type ModelProto, type ValueInfoProto } from './model-builders/onnx-builder.js';
import { TINY_LM_SPECIAL_TOKENS } from './model-builders/tiny-causal-lm.js';
import { buildTinyTokenizerFiles } from './model-builders/tiny-tokenizer.js';

const VOCAB = 8;

function lookupModel(table: ArrayLike<number>, tableDims: number[], output: ValueInfoProto, extraInputs: ValueInfoProto[] = []): ModelProto {
  return {
    irVersion: 8,
    opsetImports: [{ domain: '', version: 17 }],
    graph: {
      name: 'odd',
      nodes: [{ opType: 'Gather', inputs: ['table', 'input_ids'], outputs: [output.name] }],
      initializers: [makeTensor('table', 'float32', tableDims, table)],
      inputs: [{ name: 'input_ids', elementType: 'int64', shape: ['batch', 'sequence'] }, ...extraInputs],
      outputs: [output],
    },
  };
}

/** Logits are a table lookup whose entries are NaN. */
export function writeNanLogitsModel(dir: string): string {
  const table = Array.from({ length: VOCAB * VOCAB }, (_, index) => (index % 3 === 0 ? Number.NaN : index));
  return writeModelFiles(dir, lookupModel(table, [VOCAB, VOCAB], { name: 'logits', elementType: 'float32', shape: ['batch', 'sequence', VOCAB] }));
}

/** The only output is rank 2, so nothing can be the logits. */
export function writeNoLogitsModel(dir: string): string {
  return writeModelFiles(dir, lookupModel(Array.from({ length: VOCAB }, (_, i) => i), [VOCAB], { name: 'scores', elementType: 'float32', shape: ['batch', 'sequence'] }));
}

/** An input the scorer cannot feed (pixel_values). */
export function writeUnknownInputModel(dir: string): string {
  const table = Array.from({ length: VOCAB * VOCAB }, (_, index) => index / 10);
  return writeModelFiles(
    dir,
    lookupModel(table, [VOCAB, VOCAB], { name: 'logits', elementType: 'float32', shape: ['batch', 'sequence', VOCAB] }, [
      { name: 'pixel_values', elementType: 'float32', shape: ['batch', 3] },
    ]),
  );
}

/**
 * A bigram "model": the logits after token `previous` are `logit(previous, next)` over a vocabulary of `vocab`, with
 * the tiny tokenizer (edited by `editTokenizer`, when given) and a config naming its special tokens.
 */
export function writeBigramModel(dir: string, logit: (previous: number, next: number) => number, editTokenizer?: (tokenizerJson: Record<string, unknown>) => void): string {
  const vocab = 64;
  const table = Array.from({ length: vocab * vocab }, (_, index) => logit(Math.floor(index / vocab), index % vocab));
  const modelPath = writeModelFiles(dir, lookupModel(table, [vocab, vocab], { name: 'logits', elementType: 'float32', shape: ['batch', 'sequence', vocab] }));
  const files = buildTinyTokenizerFiles({ vocabSize: vocab, modelMaxLength: 256 });
  editTokenizer?.(files.tokenizerJson);
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(files.tokenizerJson));
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(files.tokenizerConfig));
  writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({ model_type: 'llama', vocab_size: vocab, max_position_embeddings: 256, bos_token_id: TINY_LM_SPECIAL_TOKENS.bos, eos_token_id: TINY_LM_SPECIAL_TOKENS.eos, pad_token_id: TINY_LM_SPECIAL_TOKENS.pad }),
  );
  return modelPath;
}

/**
 * A bigram model that puts EOS (id 2) 30 logits above every other token after any token: sampled at MLRB's
 * temperature and top-k it ends every generation at once unless EOS is ignored. For the model-metrics latency
 * rule (EOS disabled, full length generated).
 */
export function writeEosFirstModel(dir: string): string {
  return writeBigramModel(dir, (_previous, next) => (next === TINY_LM_SPECIAL_TOKENS.eos ? 30 : 0));
}
