/**
 * Stored tensors that hold the same bytes as another stored tensor of the same type and shape: a tied head an
 * exporter copied, a shared layer written out once per use, and across the graphs of one model (an encoder-decoder
 * export) the shared embedding each graph stores, the decoder's weights a decoder-with-past repeats. They are stored
 * twice but are one set of parameters, so the storage-based count takes them once. Tensors are compared by a few
 * sampled spans first (one read each), and only tensors whose samples agree are compared in full, in chunks: a model
 * whose 32 layers share shapes costs 32 small reads, not 32 full ones.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import { openTensorFile } from './tensor-values.js';
import type { ModelGraph, ModelTensor } from './model-graph.js';

const SAMPLE_SPANS = 8;
const SAMPLE_BYTES = 64;
const CHUNK_BYTES = 1 << 22;
/**
 * Below this size equal bytes say little (two shape constants holding 1, two norms of an untrained model holding
 * ones are not one parameter), so a smaller tensor is a copy only of one with its name too: the same norm or
 * constant written into each graph of an export under the name it has in the model.
 */
const MIN_COPY_BYTES = 256;

/** Tensors that may copy each other share this key; null for those never compared (no plain bytes to read). */
function copyKey(tensor: ModelTensor): string | null {
  if (tensor.location !== 'raw' && tensor.location !== 'external') return null;
  const kind = `${tensor.dataType}|${tensor.dims.join('x')}`;
  return tensor.length >= MIN_COPY_BYTES ? kind : `${kind}|${tensor.name}`;
}

/** Opens the tensor's file, or null where there is none to read (metadata-only models built in tests). */
function openIfStored(tensor: ModelTensor): number | null {
  let descriptor: number;
  try {
    descriptor = openTensorFile(tensor);
  } catch {
    return null;
  }
  if (fstatSync(descriptor).size < tensor.offset + tensor.length) {
    closeSync(descriptor);
    return null;
  }
  return descriptor;
}

function read(descriptor: number, tensor: ModelTensor, start: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const got = readSync(descriptor, bytes, done, length - done, tensor.offset + start + done);
    if (got === 0) break;
    done += got;
  }
  return bytes;
}

function fingerprint(tensor: ModelTensor): string | null {
  const descriptor = openIfStored(tensor);
  if (descriptor === null) return null;
  try {
    const span = Math.min(SAMPLE_BYTES, tensor.length);
    const parts: string[] = [];
    for (let index = 0; index < SAMPLE_SPANS; index++) {
      const start = Math.floor(((tensor.length - span) * index) / Math.max(1, SAMPLE_SPANS - 1));
      parts.push(read(descriptor, tensor, start, span).toString('hex'));
    }
    return parts.join('');
  } finally {
    closeSync(descriptor);
  }
}

function sameBytes(a: ModelTensor, b: ModelTensor): boolean {
  const [left, right] = [openIfStored(a), openIfStored(b)];
  try {
    if (left === null || right === null) return false;
    for (let start = 0; start < a.length; start += CHUNK_BYTES) {
      const length = Math.min(CHUNK_BYTES, a.length - start);
      if (!read(left, a, start, length).equals(read(right, b, start, length))) return false;
    }
    return true;
  } finally {
    if (left !== null) closeSync(left);
    if (right !== null) closeSync(right);
  }
}

/**
 * Each stored copy → the tensor it copies (the first of its kind, in graph order and the graphs in the order
 * given). Keyed by the tensor itself, not its name: two graphs, or two subgraphs of one, may use one name.
 */
export function storedCopies(graphs: readonly ModelGraph[]): Map<ModelTensor, ModelTensor> {
  const groups = new Map<string, ModelTensor[]>();
  for (const tensor of graphs.flatMap((graph) => graph.tensors)) {
    const key = copyKey(tensor);
    if (key === null) continue;
    const group = groups.get(key);
    if (group) group.push(tensor);
    else groups.set(key, [tensor]);
  }
  const copies = new Map<ModelTensor, ModelTensor>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const bySample = new Map<string, ModelTensor[]>();
    for (const tensor of group) {
      const sample = fingerprint(tensor);
      if (sample !== null) bySample.set(sample, [...(bySample.get(sample) ?? []), tensor]);
    }
    for (const candidates of bySample.values()) {
      const originals: ModelTensor[] = [];
      for (const tensor of candidates) {
        const original = originals.find((kept) => sameBytes(kept, tensor));
        if (original) copies.set(tensor, original);
        else originals.push(tensor);
      }
    }
  }
  return copies;
}
