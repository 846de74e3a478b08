/**
 * The zero scan from TS: picks the tensors whose payloads are plain bytes on disk, views each as
 * [dims[0], product of the rest] and hands them all to the native scan in one call (threads + SIMD
 * there). Returns per-tensor zero counts and all-zero row / column flags.
 */
import { loadBinding, type NativeZeroScanRequest } from '../../native/binding.js';
import type { ModelTensor } from './model-graph.js';

export interface TensorZeros {
  readonly tensor: string;
  readonly rows: number;
  readonly cols: number;
  readonly elements: number;
  readonly zeros: number;
  readonly zeroRows: Uint8Array;
  readonly zeroColumns: Uint8Array;
}

export interface ZeroScanOutcome {
  readonly results: ReadonlyMap<string, TensorZeros>;
  /** Tensors asked for that cannot be scanned (typed / sparse payloads, sub-byte types). */
  readonly unscanned: readonly string[];
  readonly bytes: number;
  readonly ms: number;
  readonly gbPerSecond: number;
}

function scanRequest(tensor: ModelTensor): NativeZeroScanRequest | null {
  const elementBytes = tensor.bits / 8;
  if ((tensor.location !== 'raw' && tensor.location !== 'external') || ![1, 2, 4, 8].includes(elementBytes) || tensor.dims.length === 0) return null;
  const rows = tensor.dims[0]!;
  return {
    tensor: tensor.name,
    file: tensor.file,
    offset: tensor.offset,
    rows,
    cols: rows === 0 ? 0 : tensor.elementCount / rows,
    elementBytes: elementBytes as 1 | 2 | 4 | 8,
    ignoreSign: tensor.category === 'float',
  };
}

export async function scanTensorZeros(tensors: readonly ModelTensor[], options: { readonly threads?: number } = {}): Promise<ZeroScanOutcome> {
  const planned = tensors.map((tensor) => ({ tensor, request: scanRequest(tensor) }));
  const scannable = planned.filter((entry): entry is { tensor: ModelTensor; request: NativeZeroScanRequest } => entry.request !== null);
  const started = performance.now();
  const scanned = await loadBinding().scanZeros(
    scannable.map((entry) => entry.request),
    options.threads === undefined ? {} : { threads: options.threads },
  );
  const ms = performance.now() - started;
  const bytes = scannable.reduce((sum, entry) => sum + entry.tensor.length, 0);
  const results = new Map<string, TensorZeros>();
  scannable.forEach(({ tensor, request }, index) => {
    const found = scanned[index]!;
    results.set(tensor.name, {
      tensor: tensor.name,
      rows: request.rows,
      cols: request.cols,
      elements: tensor.elementCount,
      zeros: found.zeroCount,
      zeroRows: found.zeroRows,
      zeroColumns: found.zeroColumns,
    });
  });
  return {
    results,
    unscanned: planned.filter((entry) => entry.request === null).map((entry) => entry.tensor.name),
    bytes,
    ms,
    gbPerSecond: ms > 0 ? bytes / 1e9 / (ms / 1000) : 0,
  };
}
