/**
 * The report's statistics on hand-worked inputs: successful runs out of all, the mean over successful runs,
 * the best run; and the margins and CSV quoting the tables use. The expected figures are worked by hand in
 * the comments, not computed by the code under test.
 */
import { describe, expect, it } from 'vitest';
import { marginOf } from '../../src/report/constraints.js';
import { csvField } from '../../src/report/csv.js';
import { isSuccessfulRun, summarizeByTaskAndAgent, type ScoredRun } from '../../src/report/statistics.js';
import { syntheticRunRecord } from '../support/run-records.js';

const run = (agent: string, label: string, score: number | null, successful: boolean, task = 'llm_merging'): ScoredRun => ({
  task,
  agent,
  label,
  score,
  successful,
  partialScore: null,
  eligibility: 'eligible',
});
/** A run whose headline is partial: no score, its number from part of the data. */
const partialRun = (agent: string, label: string, partialScore: number, eligibility: ScoredRun['eligibility'] = 'unchecked'): ScoredRun => ({
  task: 'llm_merging',
  agent,
  label,
  score: null,
  successful: false,
  partialScore,
  eligibility,
});
const FULL_ONLY = { includePartial: false };

describe('summarizeByTaskAndAgent', () => {
  it('counts all runs, and averages and ranks the successful ones only', () => {
    const [group] = summarizeByTaskAndAgent(
      [
        run('a', 'a #1', 0.5, true),
        run('a', 'a #2', 0.7, true),
        run('a', 'a #3', 0.9, false), // ineligible: a higher score that must not count
        run('a', 'a #4', null, false), // not scored
      ],
      FULL_ONLY,
    );
    // successful 2 of 4; mean (0.5 + 0.7) / 2 = 0.6; best 0.7 (#2), not the ineligible 0.9.
    expect(group).toEqual({
      task: 'llm_merging',
      agent: 'a',
      runs: 4,
      successful: 2,
      partial: 0,
      counted: 2,
      mean: expect.closeTo(0.6, 15) as unknown,
      best: { label: 'a #2', score: 0.7, partial: false },
    });
  });

  it('gives no mean and no best run to a group without successful runs', () => {
    expect(summarizeByTaskAndAgent([run('b', 'b #1', 0.4, false), run('b', 'b #2', null, false)], FULL_ONLY)).toEqual([
      { task: 'llm_merging', agent: 'b', runs: 2, successful: 0, partial: 0, counted: 0, mean: null, best: null },
    ]);
  });

  it('keeps the first of tied best runs and orders groups by task, then agent', () => {
    const summaries = summarizeByTaskAndAgent(
      [run('z', 'z #1', 0.25, true, 'babylm'), run('b', 'b #1', 0.4, true), run('b', 'b #2', 0.4, true), run('a', 'a #1', 0.1, true)],
      FULL_ONLY,
    );
    expect(summaries.map((group) => [group.task, group.agent])).toEqual([
      ['babylm', 'z'],
      ['llm_merging', 'a'],
      ['llm_merging', 'b'],
    ]);
    expect(summaries[2]?.best).toEqual({ label: 'b #1', score: 0.4, partial: false });
    expect(summaries[2]?.mean).toBe(0.4);
  });
});

describe('partial runs in summarizeByTaskAndAgent', () => {
  // #5 is partial and ineligible: never counted, not even as partial.
  const runs = [
    run('a', 'a #1', 0.5, true),
    partialRun('a', 'a #2', 0.9),
    run('a', 'a #3', 0.7, true),
    partialRun('a', 'a #4', 0.2),
    partialRun('a', 'a #5', 0.95, 'ineligible'),
  ];

  it('leaves them out of mean and best by default, and counts them', () => {
    // counted: #1 and #3; mean (0.5 + 0.7) / 2 = 0.6; best 0.7 (#3), not the partial 0.9.
    expect(summarizeByTaskAndAgent(runs, FULL_ONLY)).toEqual([
      {
        task: 'llm_merging',
        agent: 'a',
        runs: 5,
        successful: 2,
        partial: 2,
        counted: 2,
        mean: expect.closeTo(0.6, 15) as unknown,
        best: { label: 'a #3', score: 0.7, partial: false },
      },
    ]);
  });

  it('counts them in mean and best with includePartial, and marks a partial best', () => {
    // counted: #1 to #4; mean (0.5 + 0.9 + 0.7 + 0.2) / 4 = 0.575; best the partial 0.9 (#2), not the ineligible 0.95.
    expect(summarizeByTaskAndAgent(runs, { includePartial: true })).toEqual([
      {
        task: 'llm_merging',
        agent: 'a',
        runs: 5,
        successful: 2,
        partial: 2,
        counted: 4,
        mean: expect.closeTo(0.575, 15) as unknown,
        best: { label: 'a #2', score: 0.9, partial: true },
      },
    ]);
  });
});

describe('isSuccessfulRun', () => {
  const record = (
    status: 'scored' | 'partial' | 'not_scored' | 'unavailable',
    value: number | null,
    eligibility: 'eligible' | 'ineligible' | 'not_judged' | 'unchecked',
  ) => {
    const base = syntheticRunRecord({ task: 'llm_merging', agent: 'a', score: 0.61, eligibility, parameters: 1e9, startMinute: 0 });
    return { ...base, headline: { ...base.headline, status, value } };
  };
  it.each([
    ['scored', 0.61, 'eligible', true],
    ['scored', 0.61, 'unchecked', true],
    ['scored', 0.61, 'ineligible', false],
    // A gate not judged (DRAM estimated under --skip-dram) is not eligible: the run does not count.
    ['scored', 0.61, 'not_judged', false],
    ['partial', null, 'eligible', false],
    ['not_scored', null, 'unchecked', false],
    ['unavailable', null, 'unchecked', false],
  ] as const)('headline %s %s, %s → %s', (status, value, eligibility, expected) => {
    expect(isSuccessfulRun(record(status, value, eligibility))).toBe(expected);
  });

  it('EXPECTED FAILURE – a record that claims a scored headline for a --limit run, or without its headline suite, is not successful', () => {
    const limited = record('scored', 0.61, 'eligible');
    expect(isSuccessfulRun({ ...limited, run: { ...limited.run, limit: 50 } })).toBe(false);
    const withoutSuite = record('scored', 0.61, 'eligible');
    const suites = withoutSuite.suites.map((suite) => (suite.role === 'headline' ? { ...suite, status: 'not_scored' as const, reason: 'no data' } : suite));
    expect(isSuccessfulRun({ ...withoutSuite, suites })).toBe(false);
  });
});

describe('report tables', () => {
  it('margins are headroom over the limit: 0.25 GB used of 1 GB leaves 75 %, 1.5 GB is 50 % over', () => {
    expect(marginOf({ used: 0.25e9, limit: 1e9, limitSource: 'edge-training budget', basis: 'measured' })).toBe(0.75);
    expect(marginOf({ used: 1.5e9, limit: 1e9, limitSource: 'edge-training budget', basis: 'measured' })).toBe(-0.5);
  });

  it('quotes CSV fields that hold a comma, a quote or a line break (RFC 4180), and leaves absent values empty', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(0.5)).toBe('0.5');
  });

  it('EXPECTED FAILURE – a text cell a spreadsheet would run as a formula gets a leading quote; numbers stay numbers', () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvField("+1+cmd|' /C calc'!A0")).toBe("'+1+cmd|' /C calc'!A0");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\t=1')).toBe("'\t=1");
    expect(csvField('\r=1')).toBe('"\'\r=1"');
    expect(csvField('agent-7')).toBe('agent-7');
    expect(csvField(-0.25)).toBe('-0.25');
  });
});
