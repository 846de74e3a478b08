/**
 * Child process for test/inspect/graph/truncated-while-read.native.test.ts: starts a native read of a large file, then truncates the
 * file from the main thread while the addon's worker thread reads it. A mapping that is not guarded dies
 * of SIGBUS here, so this runs in its own process: the parent sees a signal instead of losing its worker.
 *   scan FILE DELAY_MS TENSOR  the zero scan over a 1 GiB external-data tensor named TENSOR
 *   walk FILE DELAY_MS         the model reader over a 1.3 GB ONNX file of 20,000 inline weights
 * Both files are sparse (the weights are holes), so they cost no disk. Prints one JSON line (ReadOutcome).
 */
import { closeSync, ftruncateSync, openSync, truncateSync, writeSync } from 'node:fs';
import { MlrbError } from '../../../src/errors.js';
import { loadBinding } from '../../../src/native/binding.js';
import { encodeMessage } from '../../support/model-builders/protobuf-writer.js';

export type ReadOutcome = { readonly outcome: 'finished' } | { readonly outcome: 'error'; readonly code: string; readonly message: string };

const SCAN_BYTES = 1 << 30;
const WALK_TENSORS = 20_000;
const WALK_TENSOR_BYTES = 64 << 10;

function varint(value: number): number[] {
  const bytes: number[] = [];
  for (; value >= 0x80; value = Math.floor(value / 0x80)) bytes.push((value % 0x80) | 0x80);
  bytes.push(value);
  return bytes;
}

/** ModelProto { ir_version 8, graph { initializer × WALK_TENSORS } }, each float32 [128, 128] raw_data left a hole. */
function writeSparseModel(file: string): void {
  const pieces: { at: number; bytes: Uint8Array }[] = [];
  let graphLength = 0;
  const tensors = Array.from({ length: WALK_TENSORS }, (_, index) => {
    const fields = encodeMessage((tensor) => tensor.packedVarintField(1, [128, 128]).varintField(2, 1).stringField(8, `layer.${index}.weight`));
    const header = Uint8Array.from([...fields, 0x4a, ...varint(WALK_TENSOR_BYTES)]); // raw_data = 9, length-delimited
    const initializer = Uint8Array.from([0x2a, ...varint(header.length + WALK_TENSOR_BYTES), ...header]); // GraphProto.initializer = 5
    graphLength += initializer.length + WALK_TENSOR_BYTES;
    return initializer;
  });
  const modelHeader = Uint8Array.from([0x08, 8, 0x3a, ...varint(graphLength)]); // ir_version = 1, graph = 7
  let at = modelHeader.length;
  pieces.push({ at: 0, bytes: modelHeader });
  for (const initializer of tensors) {
    pieces.push({ at, bytes: initializer });
    at += initializer.length + WALK_TENSOR_BYTES;
  }
  const descriptor = openSync(file, 'w');
  try {
    for (const piece of pieces) writeSync(descriptor, piece.bytes, 0, piece.bytes.length, piece.at);
    ftruncateSync(descriptor, at);
  } finally {
    closeSync(descriptor);
  }
}

const [mode, file, delayArg, tensor] = process.argv.slice(2) as [string, string, string, string | undefined];
let read: Promise<unknown>;
if (mode === 'scan') {
  closeSync(openSync(file, 'w'));
  truncateSync(file, SCAN_BYTES);
  const cols = 1024;
  read = loadBinding().scanZeros([{ tensor: tensor ?? '', file, offset: 0, rows: SCAN_BYTES / 4 / cols, cols, elementBytes: 4, ignoreSign: true }], {
    threads: 1,
  });
} else {
  writeSparseModel(file);
  read = loadBinding().readOnnxModel(file);
}
// Late enough that the worker has opened the file and checked its size, early enough to land mid-read.
setTimeout(() => truncateSync(file, 0), Number(delayArg));
const result: ReadOutcome = await read.then(
  () => ({ outcome: 'finished' }) as const,
  (error: unknown) => {
    if (!(error instanceof MlrbError)) throw error;
    return { outcome: 'error', code: error.code, message: error.message } as const;
  },
);
console.log(JSON.stringify(result));
