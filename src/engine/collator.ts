/**
 * Plans forward passes: requests with the same model input share one row (lm-eval's logits cache, keyed
 * on context + continuation[:-1], which fixes the input); a row that is a prefix of a longer row can be
 * folded into it (its requests then score positions before the row's end); rows are sorted longest first
 * as lm-eval's Collator does; and batches are filled while a size rule allows (a row count, or a memory
 * estimate over rows, padded length and scored positions). Because rows are sorted, each batch's first row
 * sets its padded length, every later row is at most that long, and padding stays small.
 */
import type { PackedBatch } from '../native/binding.js';
import type { ModelInput } from './model-input.js';

export interface PlannedRow {
  readonly tokens: readonly number[];
  /** Indices into the request list of every request that reads its logits from this row. */
  readonly requestIndices: readonly number[];
  /** Positions from the row's first scored one to its end: the last `scoredTail` positions need logits. */
  readonly scoredTail: number;
}

/**
 * Whether a forward pass of `rows` rows padded to `paddedLength`, with logits needed at `scoredPositions`
 * positions in all, is allowed; one row always is.
 */
export type BatchFits = (rows: number, paddedLength: number, scoredPositions: number) => boolean;

/** Longest first; equal lengths in lexicographic order, so the plan is deterministic. */
function compareRows(a: readonly number[], b: readonly number[]): number {
  return a.length !== b.length ? b.length - a.length : compareLexicographic(a, b);
}

export interface RowPlanOptions {
  /**
   * Serve a request whose input is a strict prefix of another request's input from that longer row: a causal
   * model's logits at a position do not depend on later tokens, so the longer pass computes them anyway.
   */
  readonly mergePrefixRows?: boolean;
}

function isPrefixOf(prefix: readonly number[], tokens: readonly number[]): boolean {
  if (prefix.length > tokens.length) return false;
  for (let i = 0; i < prefix.length; i += 1) if (prefix[i] !== tokens[i]) return false;
  return true;
}

export function compareLexicographic(a: readonly number[], b: readonly number[]): number {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i += 1) {
    const difference = (a[i] as number) - (b[i] as number);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/**
 * In lexicographic order a row's extensions directly follow it (anything between a row and one of its
 * extensions extends it too), so one backward pass folds every prefix row into the longest row it leads to.
 */
function mergePrefixRows(rows: { tokens: readonly number[]; requestIndices: number[] }[]): { tokens: readonly number[]; requestIndices: number[] }[] {
  const sorted = [...rows].sort((a, b) => compareLexicographic(a.tokens, b.tokens));
  const kept: { tokens: readonly number[]; requestIndices: number[] }[] = [];
  let owner: { tokens: readonly number[]; requestIndices: number[] } | undefined;
  for (let index = sorted.length - 1; index >= 0; index -= 1) {
    const row = sorted[index] as (typeof sorted)[number];
    const next = sorted[index + 1];
    if (owner && next && isPrefixOf(row.tokens, next.tokens)) {
      owner.requestIndices.push(...row.requestIndices);
    } else {
      owner = { tokens: row.tokens, requestIndices: [...row.requestIndices] };
      kept.push(owner);
    }
  }
  return kept;
}

export function planRows(inputs: readonly ModelInput[], options: RowPlanOptions = {}): PlannedRow[] {
  const byKey = new Map<string, { tokens: readonly number[]; requestIndices: number[] }>();
  inputs.forEach((input, index) => {
    const key = input.inputTokens.join(',');
    const row = byKey.get(key);
    if (row) row.requestIndices.push(index);
    else byKey.set(key, { tokens: input.inputTokens, requestIndices: [index] });
  });
  const unique = options.mergePrefixRows ? mergePrefixRows([...byKey.values()]) : [...byKey.values()];
  return sortLongestFirst(
    unique.map((row) => {
      const firstScored = Math.min(
        ...row.requestIndices.map((index) => {
          const input = inputs[index] as ModelInput;
          return input.inputTokens.length - input.continuationTokens.length;
        }),
      );
      return { ...row, scoredTail: row.tokens.length - firstScored };
    }),
  );
}

export function sortLongestFirst<Row extends PlannedRow>(rows: Row[]): Row[] {
  return rows.sort((a, b) => compareRows(a.tokens, b.tokens));
}

/** Padding a batch may carry, as a fraction of the tokens it computes; a row that would exceed it starts a new batch. */
export const DEFAULT_MAX_PADDING_FRACTION = 0.1;

/**
 * Fills batches in row order while `fits` allows and padding stays within `maxPaddingFraction` of the
 * batch's tokens (1: no padding limit). Rows must come longest first (planRows' order), so a row never lengthens its batch:
 * it only adds (padded length - its length) padding, and a much shorter row opens a batch of its own.
 */
export function planBatches(rows: readonly PlannedRow[], fits: BatchFits, maxPaddingFraction = 1): PlannedRow[][] {
  const batches: PlannedRow[][] = [];
  let current: PlannedRow[] = [];
  let paddedLength = 0;
  let scoredPositions = 0;
  let realTokens = 0;
  for (const row of rows) {
    const nextPadded = Math.max(paddedLength, row.tokens.length);
    const nextCells = (current.length + 1) * nextPadded;
    const tooMuchPadding = nextCells - (realTokens + row.tokens.length) > maxPaddingFraction * nextCells;
    if (current.length > 0 && (tooMuchPadding || !fits(current.length + 1, nextPadded, scoredPositions + row.scoredTail))) {
      batches.push(current);
      current = [];
      scoredPositions = 0;
      realTokens = 0;
    }
    current.push(row);
    paddedLength = current.length === 1 ? row.tokens.length : nextPadded;
    scoredPositions += row.scoredTail;
    realTokens += row.tokens.length;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export interface PackedPlan {
  readonly batch: PackedBatch;
  /** For each request of the packed batch, its index in the request list. */
  readonly requestIndices: Int32Array;
  /** Real (unpadded) input tokens in the batch. */
  readonly inputTokenCount: number;
}

/**
 * Flattens one planned batch into the typed arrays the native core takes. `prefixLength` is the reused
 * prefix cut off the front of every row (see prefix-plan.ts), so request ends move back by as much.
 */
export function packBatch(rows: readonly PlannedRow[], inputs: readonly ModelInput[], prefixLength = 0): PackedPlan {
  let tokenCount = 0;
  let requestCount = 0;
  let targetCount = 0;
  for (const row of rows) {
    tokenCount += row.tokens.length;
    requestCount += row.requestIndices.length;
    for (const index of row.requestIndices) targetCount += (inputs[index] as ModelInput).continuationTokens.length;
  }
  const tokens = new Int32Array(tokenCount);
  const rowOffsets = new Int32Array(rows.length + 1);
  const requestRows = new Int32Array(requestCount);
  const requestEnds = new Int32Array(requestCount);
  const requestIndices = new Int32Array(requestCount);
  const targets = new Int32Array(targetCount);
  const targetOffsets = new Int32Array(requestCount + 1);
  let tokenCursor = 0;
  let requestCursor = 0;
  let targetCursor = 0;
  rows.forEach((row, rowIndex) => {
    tokens.set(row.tokens, tokenCursor);
    tokenCursor += row.tokens.length;
    rowOffsets[rowIndex + 1] = tokenCursor;
    for (const index of row.requestIndices) {
      const input = inputs[index] as ModelInput;
      requestRows[requestCursor] = rowIndex;
      requestEnds[requestCursor] = input.inputTokens.length - prefixLength;
      requestIndices[requestCursor] = index;
      targets.set(input.continuationTokens, targetCursor);
      targetCursor += input.continuationTokens.length;
      requestCursor += 1;
      targetOffsets[requestCursor] = targetCursor;
    }
  });
  return { batch: { tokens, rowOffsets, requestRows, targets, targetOffsets, requestEnds }, requestIndices, inputTokenCount: tokenCount };
}
