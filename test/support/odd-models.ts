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

/**
 * A lookup model over the tiny tokenizer with `count` Identity nodes chained after its logits (`t0` → `t1` → … → logits): a
 * graph of trivial nodes as large as an attacker likes, some 30 bytes a node. The nodes are encoded here directly,
 * since a million node objects would take the builder seconds and hundreds of MB.
 */
export function writeIdentityChainModel(dir: string, count: number): string {
  const model = tinyTokenizerLookupModel();
  const gather = { ...model.graph.nodes[0]!, outputs: ['t0'] };
  const fields = new EncodedFields();
  for (let index = 0; index < count; index += 1) {
    const output = index === count - 1 ? 'logits' : `t${index + 1}`;
    const input = `t${index}`;
    // NodeProto: input (1), output (2), op_type (4).
    fields.message(1, [
      [1, input],
      [2, output],
      [4, 'Identity'],
    ]);
  }
  const modelPath = writeModelFiles(dir, { ...model, graph: { ...model.graph, nodes: [gather], encodedFields: fields.bytes() } });
  writeTinyTokenizer(dir);
  return modelPath;
}

/** A lookup model over the tiny tokenizer's 64 ids, which writeTinyTokenizer() puts beside it. */
function tinyTokenizerLookupModel(): ModelProto {
  const vocab = 64;
  const table = Array.from({ length: vocab * vocab }, (_, index) => (index % 17) / 10);
  return lookupModel(table, [vocab, vocab], { name: 'logits', elementType: 'float32', shape: ['batch', 'sequence', vocab] });
}

function writeTinyTokenizer(dir: string): void {
  const files = buildTinyTokenizerFiles({ vocabSize: 64, modelMaxLength: 256 });
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(files.tokenizerJson));
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(files.tokenizerConfig));
}

/** The lookup model with `count` more scalar initializers, unused (`w0`, `w1` …): a graph of many tiny weights. */
export function writeManyInitializersModel(dir: string, count: number): string {
  const model = tinyTokenizerLookupModel();
  const fields = new EncodedFields();
  // TensorProto: data_type (2) FLOAT, name (8), raw_data (9) four zero bytes; no dims: a scalar.
  for (let index = 0; index < count; index += 1)
    fields.message(5, [
      [2, 1],
      [8, `w${index}`],
      [9, '\0\0\0\0'],
    ]);
  const modelPath = writeModelFiles(dir, { ...model, graph: { ...model.graph, encodedFields: fields.bytes() } });
  writeTinyTokenizer(dir);
  return modelPath;
}

/**
 * Small messages of short fields encoded straight into one growing buffer (a million of them would take the object
 * builder seconds): each field is a number (varint under 128) or a text under 128 bytes, so every tag and length
 * is one byte.
 */
class EncodedFields {
  private buffer = Buffer.alloc(1 << 20);
  private length = 0;

  message(field: number, inner: readonly (readonly [number, string | number])[]): void {
    const size = inner.reduce((sum, [, value]) => sum + 2 + (typeof value === 'number' ? 0 : Buffer.byteLength(value)), 0);
    this.reserve(2 + size);
    this.put((field << 3) | 2, size);
    for (const [number, value] of inner) {
      if (typeof value === 'number') {
        this.put(number << 3, value);
      } else {
        this.put((number << 3) | 2, Buffer.byteLength(value));
        this.length += this.buffer.write(value, this.length, 'latin1');
      }
    }
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private put(first: number, second: number): void {
    this.buffer[this.length++] = first;
    this.buffer[this.length++] = second;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + extra));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

/** The only output is rank 2, so nothing can be the logits. */
export function writeNoLogitsModel(dir: string): string {
  return writeModelFiles(
    dir,
    lookupModel(
      Array.from({ length: VOCAB }, (_, i) => i),
      [VOCAB],
      { name: 'scores', elementType: 'float32', shape: ['batch', 'sequence'] },
    ),
  );
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
export function writeBigramModel(
  dir: string,
  logit: (previous: number, next: number) => number,
  editTokenizer?: (tokenizerJson: Record<string, unknown>) => void,
): string {
  const vocab = 64;
  const table = Array.from({ length: vocab * vocab }, (_, index) => logit(Math.floor(index / vocab), index % vocab));
  const modelPath = writeModelFiles(dir, lookupModel(table, [vocab, vocab], { name: 'logits', elementType: 'float32', shape: ['batch', 'sequence', vocab] }));
  const files = buildTinyTokenizerFiles({ vocabSize: vocab, modelMaxLength: 256 });
  editTokenizer?.(files.tokenizerJson);
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(files.tokenizerJson));
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(files.tokenizerConfig));
  writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'llama',
      vocab_size: vocab,
      max_position_embeddings: 256,
      bos_token_id: TINY_LM_SPECIAL_TOKENS.bos,
      eos_token_id: TINY_LM_SPECIAL_TOKENS.eos,
      pad_token_id: TINY_LM_SPECIAL_TOKENS.pad,
    }),
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
