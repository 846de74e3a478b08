/**
 * Stored integer and bool tables that hold no weights, whatever reads them: what their values are proves it.
 * - Position buffers: an arithmetic progression (position ids 0, 1, 2 …, an offset start, token-type zeros): two
 *   numbers describe the whole table.
 * - Causal and banded masks: 0/1 values whose pattern over the last two axes depends only on row − column (a
 *   causal triangle, a sliding window), every leading slice the same: at most rows + columns − 1 bits.
 * Models store such tables and slice them to the input's length (Hugging Face GPT-2's `bias` buffer, a
 * `position_ids` buffer); a table of codes, bit-planes or packed weights has neither form, so reading it by
 * position proves nothing. Tables larger than MAX_TABLE_ELEMENTS are not read, and prove nothing either.
 */
import { readIntegerValues } from './graph-tensor-values.js';
import type { ModelTensor } from './model-graph.js';

export const MAX_TABLE_ELEMENTS = 1 << 24;
/** Read first: codes fail both forms within a few values, so a large code matrix is not read whole. */
const PREFIX_ELEMENTS = 4096;

export type WeightlessTable = 'progression' | 'band-mask';

/** What the table is, or null when its values are not one of the weightless forms (or cannot be read). */
export function weightlessTable(tensor: ModelTensor): WeightlessTable | null {
  if (tensor.category === 'float' || tensor.category === 'string' || tensor.elementCount === 0) return null;
  const prefix = readIntegerValues(tensor, MAX_TABLE_ELEMENTS, PREFIX_ELEMENTS);
  if (prefix === null || (!isProgression(prefix) && prefix.some((value) => value !== 0 && value !== 1))) return null;
  const values = prefix.length === tensor.elementCount ? prefix : readIntegerValues(tensor, MAX_TABLE_ELEMENTS);
  if (values === null) return null;
  if (isProgression(values)) return 'progression';
  return isBandMask(values, tensor.dims) ? 'band-mask' : null;
}

function isProgression(values: readonly number[]): boolean {
  const step = values.length > 1 ? values[1]! - values[0]! : 0;
  return values.every((value, index) => value === values[0]! + index * step);
}

function isBandMask(values: readonly number[], dims: readonly number[]): boolean {
  if (dims.length < 2 || values.some((value) => value !== 0 && value !== 1)) return false;
  const rows = dims.at(-2)!;
  const columns = dims.at(-1)!;
  const plane = rows * columns;
  const diagonal = new Map<number, number>();
  for (let index = 0; index < values.length; index++) {
    const within = index % plane;
    if (index >= plane && values[index] !== values[within]) return false; // every leading slice the same
    const offset = Math.floor(within / columns) - (within % columns);
    const seen = diagonal.get(offset);
    if (seen === undefined) diagonal.set(offset, values[index]!);
    else if (seen !== values[index]) return false;
  }
  return true;
}
