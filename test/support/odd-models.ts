/** Small hand-built graphs that a scorer must refuse or flag, built with the project's ONNX writer. */
import { makeTensor, writeModelFiles, type ModelProto, type ValueInfoProto } from './model-builders/onnx-builder.js';

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
