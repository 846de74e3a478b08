/**
 * One .safetensors file's table of contents: an 8-byte little-endian header length, a JSON header naming each
 * tensor's dtype, shape and byte range, then the data. Only the header is read (two positioned reads); the
 * tensors become ModelTensor records pointing into the file, so the value readers of graph-tensor-values read
 * exactly the rows they need later. The file comes from the agent: it must be a regular file that resolves
 * inside the checkpoint folder, the header length is capped, and every byte range must lie inside the data
 * and match its shape, or the file is BAD_MODEL naming it.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import type { NativeTensorInfo } from '../../native/binding.js';

/** The safetensors format's own limit on the JSON header (its reference reader refuses larger ones). */
export const MAX_HEADER_BYTES = 100_000_000;

// safetensors dtype → [ONNX TensorProto.DataType code, bytes per element].
const DTYPES: Readonly<Record<string, readonly [number, number]>> = {
  F64: [11, 8],
  F32: [1, 4],
  F16: [10, 2],
  BF16: [16, 2],
  I64: [7, 8],
  I32: [6, 4],
  I16: [5, 2],
  I8: [3, 1],
  U8: [2, 1],
  BOOL: [9, 1],
  F8_E4M3: [17, 1],
  F8_E5M2: [19, 1],
};

const entrySchema = z.object({
  dtype: z.string(),
  shape: z.array(z.number().int().nonnegative()),
  data_offsets: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
});

export interface SafetensorsFile {
  /** The file's real path (symlinks resolved, inside the folder). */
  readonly file: string;
  readonly tensors: readonly NativeTensorInfo[];
}

/** Resolves `file` and insists it stays inside `root`: a shard named in an index could be "../../etc/shadow". */
export function resolveInside(file: string, root: string): string {
  const fail = (reason: string): MlrbError => new MlrbError('BAD_MODEL', `safetensors file ${reason}: ${path.resolve(file)}`, { file: path.resolve(file) });
  let resolved: string;
  let realRoot: string;
  try {
    resolved = realpathSync(file);
    realRoot = realpathSync(root);
  } catch (error) {
    throw fail(`cannot be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const relative = path.relative(realRoot, resolved);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) throw fail(`resolves outside the checkpoint folder ${realRoot}`);
  return resolved;
}

export function readSafetensorsHeader(file: string, root: string): SafetensorsFile {
  const resolved = resolveInside(file, root);
  const fail = (reason: string): MlrbError => new MlrbError('BAD_MODEL', `${resolved}: ${reason}`, { file: resolved });
  let descriptor: number;
  try {
    // Without blocking and without following a link swapped in since it was resolved.
    descriptor = openSync(resolved, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    throw fail(`cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw fail('is not a regular file');
    const lengthBytes = readAt(descriptor, 8, 0, fail);
    const headerLength = Number(lengthBytes.readBigUInt64LE(0));
    if (headerLength > MAX_HEADER_BYTES || 8 + headerLength > stats.size) {
      throw fail(`states a ${headerLength}-byte header in a ${stats.size}-byte file (at most ${MAX_HEADER_BYTES} bytes): not a safetensors file`);
    }
    const header = parseHeader(readAt(descriptor, headerLength, 8, fail), fail);
    return { file: resolved, tensors: tensorsOf(header, resolved, 8 + headerLength, stats.size - 8 - headerLength, fail) };
  } finally {
    closeSync(descriptor);
  }
}

function readAt(descriptor: number, length: number, position: number, fail: (reason: string) => MlrbError): Buffer {
  const bytes = Buffer.alloc(length);
  for (let done = 0; done < length; ) {
    const read = readSync(descriptor, bytes, done, length - done, position + done);
    if (read === 0) throw fail('ends inside its header');
    done += read;
  }
  return bytes;
}

function parseHeader(bytes: Buffer, fail: (reason: string) => MlrbError): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw fail('its header is not UTF-8 JSON'); // never quote the header: it is the agent's bytes
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw fail('its header is not a JSON object');
  return json as Record<string, unknown>;
}

function tensorsOf(
  header: Record<string, unknown>,
  file: string,
  dataStart: number,
  dataBytes: number,
  fail: (reason: string) => MlrbError,
): NativeTensorInfo[] {
  const tensors: NativeTensorInfo[] = [];
  for (const [name, value] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const entry = entrySchema.safeParse(value);
    if (!entry.success) throw fail(`tensor ${name} has no valid dtype, shape and data_offsets`);
    const {
      dtype,
      shape,
      data_offsets: [begin, end],
    } = entry.data;
    const facts = DTYPES[dtype];
    if (facts === undefined) throw fail(`tensor ${name} has unknown dtype ${dtype}`);
    const elementCount = shape.reduce((product, dim) => product * dim, 1);
    if (end < begin || end > dataBytes || end - begin !== elementCount * facts[1]) {
      throw fail(`tensor ${name} (${dtype} ${JSON.stringify(shape)}) claims bytes ${begin}..${end} of ${dataBytes}: they do not fit its shape or the file`);
    }
    tensors.push({
      name,
      dataType: facts[0],
      dims: shape,
      location: 'external',
      source: 'initializer',
      graph: '',
      file,
      offset: dataStart + begin,
      length: end - begin,
      elementCount,
    });
  }
  return tensors;
}
