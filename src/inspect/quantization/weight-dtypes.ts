/**
 * "The model must be submitted in FP16 or FP32 format" (MLRB's edge task prompts; the Edge-LLM challenge says the
 * same): every stored float weight is stored as float16 or float32, and its reader gets it as float16 or float32.
 * The rule is about the submitted file, so a weight stored as bfloat16 and cast to float32 on its way fails as much
 * as a float32 weight cast to bfloat16 before its MatMul. bfloat16 and float64 are floats, not quantization, but
 * not FP16/FP32 either: the tracks fail them, `check-pruning` and a bare `inspect` warn by default (`bf16: 'fail'`
 * makes them fail). Scalars (an fp64 epsilon) are no weights and are left alone. The weights are the allow-list's
 * stored float reads (quantization/weight-provenance.ts).
 */
import { dtypeFacts } from '../graph/dtypes.js';
import type { StoredWeightRead } from './weight-provenance.js';
import { verdictOf, type Verdict } from '../verdict.js';

export const WEIGHT_DTYPES = ['float16', 'float32'] as const;

export interface OffTypeWeight {
  readonly tensor: string;
  /** The type the reader gets: the stored type, or the last float type it was cast to on the way. */
  readonly dtype: string;
  /** The type it is stored as; either type outside FP16/FP32 puts the weight here. */
  readonly storedDtype: string;
}

export interface WeightDtypeCheck {
  readonly verdict: Verdict;
  readonly allowed: readonly string[];
  /** Weights stored as, or read as, another float type, one entry per tensor. */
  readonly offType: readonly OffTypeWeight[];
  /** Stored float weights by type: tensors and elements. */
  readonly byDtype: Readonly<Record<string, { readonly tensors: number; readonly elements: number }>>;
}

export function checkWeightDtypes(reads: readonly StoredWeightRead[], mode: 'warn' | 'fail'): WeightDtypeCheck {
  if (mode !== 'warn' && mode !== 'fail') throw new TypeError(`bf16 must be 'warn' or 'fail', got ${String(mode)}`);
  const offType = new Map<string, OffTypeWeight>();
  const byDtype: Record<string, { tensors: number; elements: number }> = {};
  const counted = new Set<string>();
  for (const { tensor, castTo } of reads) {
    if (tensor.elementCount <= 1) continue;
    const dtype = castTo.length > 0 ? dtypeFacts(castTo.at(-1)!).name : tensor.dtype;
    if (!counted.has(tensor.name)) {
      counted.add(tensor.name);
      const entry = (byDtype[tensor.dtype] ??= { tensors: 0, elements: 0 });
      entry.tensors += 1;
      entry.elements += tensor.elementCount;
    }
    const allowed = (type: string): boolean => (WEIGHT_DTYPES as readonly string[]).includes(type);
    if (!(allowed(dtype) && allowed(tensor.dtype)) && !offType.has(tensor.name))
      offType.set(tensor.name, { tensor: tensor.name, dtype, storedDtype: tensor.dtype });
  }
  const list = [...offType.values()];
  const findings: string[] = [];
  if (list.length > 0) {
    const names = list
      .slice(0, 8)
      .map((weight) => `${weight.tensor} (${weight.dtype === weight.storedDtype ? weight.dtype : `${weight.storedDtype} cast to ${weight.dtype}`})`);
    findings.push(
      `${list.length} weight tensor(s) are not FP16/FP32 (weights must be FP16 or FP32): ${names.join(', ')}${list.length > 8 ? `, … (${list.length} in all)` : ''}`,
    );
  }
  return {
    verdict: mode === 'fail' ? verdictOf(findings) : verdictOf([], findings),
    allowed: [...WEIGHT_DTYPES],
    offType: list,
    byDtype,
  };
}
