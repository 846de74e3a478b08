/**
 * Past PER_RUN_CHART_LIMIT runs the report's charts aggregate: their data (and so their drawing) is bounded by
 * tasks × agents, not by runs. The figures below are counted from the designed runs, not from the charts.
 * bench/report-scale.ts times the whole report over 10,000 records.
 */
import { describe, expect, it } from 'vitest';
import { PER_RUN_CHART_LIMIT, reportCharts } from '../../src/report/charts.js';
import { toReportRuns } from '../../src/report/report-run.js';
import { summarizeByTaskAndAgent } from '../../src/report/statistics.js';
import { syntheticRunRecord, type SyntheticRun } from '../support/run-records.js';

const AGENTS = 4;

function runsOf(count: number) {
  const records = Array.from({ length: count }, (_, index) => {
    const run: SyntheticRun = {
      // index mod 8 picks the task and the agent; each task × agent pair cycles through 10 scores.
      task: Math.floor(index / AGENTS) % 2 === 0 ? 'edge_llm_compression' : 'llm_merging',
      agent: `agent-${index % AGENTS}`,
      score: 0.3 + (Math.floor(index / 8) % 10) / 100,
      eligibility: 'eligible',
      parameters: 1e9,
      dramUsedBytes: 1e9 + index * 1e6,
      startMinute: index,
    };
    return { file: `run-${index}.json`, record: syntheticRunRecord(run) };
  });
  return toReportRuns(records);
}

/** Every data row of a spec, its panels' included. */
function dataRows(spec: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) {
      const values = (node as { data?: { values?: unknown } }).data?.values;
      if (Array.isArray(values)) found.push(...(values as Record<string, unknown>[]));
      Object.values(node).forEach(walk);
    }
  };
  walk(spec);
  return found;
}

describe('report charts at scale', () => {
  it(`draw each run while there are at most ${PER_RUN_CHART_LIMIT}`, () => {
    const runs = runsOf(40);
    const charts = reportCharts(runs, summarizeByTaskAndAgent(runs, { includePartial: false }), { includePartial: false });
    const scores = charts.find((chart) => chart.id === 'scores');
    expect(dataRows(scores?.spec).filter((row) => row.kind === 'run')).toHaveLength(40);
    expect(dataRows(charts.find((chart) => chart.id === 'mmlu-categories')?.spec)).toHaveLength(40 * 4);
  });

  it('aggregate past the limit: dots merged by score bin, bars per agent, margins per task and agent at their worst', () => {
    const count = PER_RUN_CHART_LIMIT * 4;
    const runs = runsOf(count);
    const charts = reportCharts(runs, summarizeByTaskAndAgent(runs, { includePartial: false }), { includePartial: false });
    const byId = (id: string) => charts.find((chart) => chart.id === id);
    const dots = dataRows(byId('scores')?.spec).filter((row) => row.kind === 'run');
    // 2 tasks × 4 agents × 10 scores.
    expect(dots).toHaveLength(2 * AGENTS * 10);
    expect(dots.reduce((sum, dot) => sum + (dot.runs as number), 0)).toBe(count);
    expect(byId('scores')?.caption).toMatch(/1,200, more than 300: runs of one agent, kind and eligibility whose scores round to the same 0\.005 share a dot/);
    // MMLU is scored by both tasks' runs: 2 tasks × 4 agents × 4 categories.
    expect(dataRows(byId('mmlu-categories')?.spec)).toHaveLength(2 * AGENTS * 4);
    const margins = dataRows(byId('dram-margin')?.spec).filter((row) => 'margin' in row && row.runs !== undefined);
    expect(margins).toHaveLength(AGENTS);
    // The worst compression run of agent-0 is its last (the most DRAM used): index count − 8.
    const worst = margins.find((row) => row.agent === 'agent-0');
    expect(worst?.used).toBe(1e9 + (count - 8) * 1e6);
    expect(worst?.runs).toBe(count / 8);
  });
});
