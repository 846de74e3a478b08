/**
 * How the report reads a run's completeness from its record: the reasons a run's data was incomplete and the
 * number a partial headline would have had. The records are built as `mlrb-eval mlrb` writes them
 * (test/support/run-records.ts); the expected figures are the ones put into them.
 */
import { describe, expect, it } from 'vitest';
import { incompleteReasons, partialHeadlineValue } from '../../src/report/completeness.js';
import type { RunRecord } from '../../src/mlrb/run-record.js';
import { SYNTHETIC_LIMIT, syntheticRunRecord, type SyntheticRun } from '../support/run-records.js';

const merging: SyntheticRun = { task: 'llm_merging', agent: 'a', score: 0.61, eligibility: 'unchecked', parameters: 7e9, startMinute: 0 };

describe('incompleteReasons', () => {
  it('is empty for a run scored on all of its data', () => {
    expect(incompleteReasons(syntheticRunRecord(merging))).toEqual([]);
  });

  it('names --limit, a suite lacking subtasks, and a suite not scored', () => {
    expect(incompleteReasons(syntheticRunRecord({ ...merging, partial: 'limit' }))).toEqual([`--limit ${SYNTHETIC_LIMIT}`]);
    expect(incompleteReasons(syntheticRunRecord({ ...merging, partial: 'missing-subtasks' }))).toEqual(['mmlu partial: without mmlu_abstract_algebra']);
    expect(incompleteReasons(syntheticRunRecord({ ...merging, score: null }))).toEqual(['mmlu not scored']);
  });
});

describe('partialHeadlineValue', () => {
  it('reads the headline entry under --limit and the <entry>_partial group of a folder lacking subtasks', () => {
    expect(partialHeadlineValue(syntheticRunRecord({ ...merging, partial: 'limit' }))).toBe(0.61);
    const missing = syntheticRunRecord({ ...merging, partial: 'missing-subtasks' });
    expect(missing.lm_eval?.results.mmlu).toBeUndefined();
    expect(partialHeadlineValue(missing)).toBe(0.61);
  });

  it('is null for a scored headline, which is the score itself, and for one not scored', () => {
    expect(partialHeadlineValue(syntheticRunRecord(merging))).toBeNull();
    expect(partialHeadlineValue(syntheticRunRecord({ ...merging, score: null }))).toBeNull();
  });

  it("reads math_reasoning's compile rate from its report under --limit; its MMLU subjects are extras, never incomplete", () => {
    const base = syntheticRunRecord({ ...merging, task: 'math_reasoning', score: null });
    const limited: RunRecord = {
      ...base,
      headline: { ...base.headline, status: 'partial', value: null, reasons: ['--limit 2: 2 of 40 problems were scored'] },
      math_reasoning: {
        data_file: 'minif2f.jsonl',
        problems_scored: 2,
        problems_in_file: 40,
        metrics: { rouge_l: 0.42, bleu: 12.5, lean: { compiled: 1, failed: 1, timed_out: 0, compile_rate: 0.5 } },
        problems: [],
      },
      run: { ...base.run, limit: 2 },
    };
    expect(partialHeadlineValue(limited)).toBe(0.5);
    expect(incompleteReasons(limited)).toEqual(['--limit 2', 'math_reasoning 2 of 40 problems']);
    // A record read from version 2, whose math headline was ROUGE-L, reads ROUGE-L.
    expect(partialHeadlineValue({ ...limited, headline: { ...limited.headline, source: { kind: 'math_reasoning', metric: 'rouge_l' } } })).toBe(0.42);
  });
});
