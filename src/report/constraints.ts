/**
 * How close a run's model is to a task's hard limits. Two limits are numbers a model file shows:
 *  - DRAM: the edge tracks' budget (1 GB training, 12 GB compression), judged by `check-track`; the record's
 *    track_check holds the budget and the bytes its verdict used (measured, or estimated when not measured);
 *  - parameters: llm_merging merges public models of at most 8B parameters, and a merge keeps its inputs'
 *    size, so the merged model's count is held to 8B; edge_llm_compression must prune its base, so its count
 *    is held to the base's (the pruning check's figure).
 * Margin = (limit − used) / limit: positive is headroom, negative is over the limit.
 */
import { z } from 'zod';
import type { RunRecord } from '../mlrb/run-record.js';

export interface ConstraintUse {
  readonly used: number;
  readonly limit: number;
  /** Where the limit comes from, for people ("edge-training budget", "base model"). */
  readonly limitSource: string;
  /** How `used` was obtained ("measured", "estimate", "graph"). */
  readonly basis: string;
}

/** llm_merging's rule: "public models of at most 8B parameters" (src/mlrb/tasks.ts). */
const MERGING_PARAMETER_LIMIT = 8e9;

export function marginOf(use: ConstraintUse): number {
  return (use.limit - use.used) / use.limit;
}

/** The fields of `check-track --json` the DRAM margin needs (src/inspect/dram/dram-check.ts, DramCheck). */
const trackDram = z.looseObject({
  checks: z.looseObject({
    dram: z.looseObject({
      budget: z.looseObject({ bytes: z.number().positive(), source: z.string() }).nullable(),
      usedBytes: z.number().nonnegative(),
      basis: z.string(),
    }),
  }),
});

export function dramConstraint(record: RunRecord): ConstraintUse | null {
  const parsed = trackDram.safeParse(record.track_check);
  if (!parsed.success) return null;
  const { budget, usedBytes, basis } = parsed.data.checks.dram;
  if (budget === null) return null;
  return { used: usedBytes, limit: budget.bytes, limitSource: `${budget.source} budget`, basis };
}

/** The pruning check's base parameter count (src/inspect/pruning/pruning-check.ts, PruningReport.base). */
const trackPruningBase = z.looseObject({
  checks: z.looseObject({ pruning: z.looseObject({ base: z.looseObject({ totalParams: z.number().positive() }) }) }),
});

export function parameterConstraint(record: RunRecord): ConstraintUse | null {
  const used = record.model.parameters;
  if (used === null) return null;
  if (record.task === 'llm_merging') return { used, limit: MERGING_PARAMETER_LIMIT, limitSource: '8B merge inputs', basis: 'graph' };
  if (record.task === 'edge_llm_compression') {
    const parsed = trackPruningBase.safeParse(record.track_check);
    if (parsed.success) return { used, limit: parsed.data.checks.pruning.base.totalParams, limitSource: 'base model', basis: 'graph' };
  }
  return null;
}
