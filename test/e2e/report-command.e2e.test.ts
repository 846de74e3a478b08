/**
 * `mlrb-eval report` end to end: a few runs per task by three agents (records built from the record schema
 * with realistic values) plus real records from `mlrb-eval mlrb` on a tiny model. The files are checked
 * everywhere; the page is loaded in a real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core) where one is installed: it renders without console errors, every chart's SVG holds the
 * marks the runs call for, and a full-page screenshot is taken. The expected mark counts are derived from the
 * runs as designed below, not from the report's own tables. agent-alpha's records are version 1 files (written
 * before model metrics existed), agent-beta's carry model metrics: the report reads both. Each agent also has
 * two partial runs (one scored on an MMLU folder lacking a subject, one with --limit) whose numbers beat all
 * its full runs: they must stay out of mean and best unless --include-partial asks for them, and be drawn apart.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { mlrbTaskDefinition } from '../../src/mlrb/tasks.js';
import { parseCsv } from '../../src/tasks/csv.js';
import { writeFullBlimp } from '../support/full-blimp.js';
import { runCli } from '../support/run-cli.js';
import { asVersion1Json, syntheticRunRecord, type SyntheticRun } from '../support/run-records.js';
import { writeTinyMmlu } from '../support/tiny-datasets.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`report-command.test: SKIPPING the Chromium checks: ${CHROMIUM} is absent (apt-get install chromium)`);

const AGENTS = ['agent-alpha', 'agent-beta', 'agent-gamma'] as const;
/** Each agent's fourth attempt: partial runs only. */
const PARTIAL_ATTEMPT = 3;
/** Its records are written as version 1 files. */
const V1_AGENT = 'agent-alpha';
/** Its runs measured the model metrics (`--model-metrics`); the others did not. */
const METRICS_AGENT = 'agent-beta';

/**
 * Three runs per agent and task; agent-gamma's compressed models are all quantized (ineligible); agent-beta's
 * attempt n measured perplexity 20 + n, 100 + 10n tokens/s and 2 + n ms per token. A fourth attempt per agent
 * is partial: llm_merging on an MMLU folder without a STEM subject, babylm with --limit; both score higher
 * than any full run of the agent.
 */
function designedRuns(): SyntheticRun[] {
  const runs: SyntheticRun[] = [];
  let minute = 0;
  AGENTS.forEach((agent, agentIndex) => {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const base = 0.3 + 0.1 * agentIndex + 0.04 * attempt;
      const metrics =
        agent === METRICS_AGENT ? { modelMetrics: { perplexity: 20 + attempt, tokensPerSecond: 100 + 10 * attempt, latencyMsPerToken: 2 + attempt } } : {};
      const common = { agent, startMinute: (minute += 7), ...metrics };
      if (attempt === PARTIAL_ATTEMPT) {
        runs.push({
          ...common,
          task: 'llm_merging',
          score: 0.9 - 0.01 * agentIndex,
          eligibility: 'unchecked',
          parameters: 7_241_732_096,
          partial: 'missing-subtasks',
        });
        runs.push({ ...common, task: 'babylm', score: 0.97 - 0.01 * agentIndex, eligibility: 'unchecked', parameters: 124_000_000, partial: 'limit' });
        continue;
      }
      runs.push({ ...common, task: 'llm_merging', score: base, eligibility: 'unchecked', parameters: 7_241_732_096 + attempt * 1e6 });
      // The first babylm attempt of each agent had no BLiMP data: no headline, so not successful.
      runs.push({ ...common, task: 'babylm', score: attempt === 0 ? null : base + 0.3, eligibility: 'unchecked', parameters: 124_000_000 });
      runs.push({
        ...common,
        task: 'edge_llm_training',
        score: base + 0.1,
        eligibility: attempt === 2 ? 'ineligible' : 'eligible',
        parameters: 350_000_000,
        dramUsedBytes: (0.5 + 0.3 * attempt) * 1e9,
      });
      runs.push({
        ...common,
        task: 'edge_llm_compression',
        score: base + 0.15,
        eligibility: agent === 'agent-gamma' ? 'ineligible' : 'eligible',
        parameters: 2_000_000_000 - attempt * 2e8,
        dramUsedBytes: (6 + 2 * attempt) * 1e9,
      });
      runs.push({ ...common, task: 'math_reasoning', score: null, eligibility: 'unchecked', parameters: 1_500_000_000 });
    }
  });
  return runs;
}

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-report-'));
const outDir = path.join(workDir, 'report');
/** The same records reported with --include-partial. */
const inclusiveOutDir = path.join(workDir, 'report-inclusive');
const designed = designedRuns();
/** Real records from `mlrb-eval mlrb` on the tiny model: two scored tasks and one edge task without its data. */
const REAL_TASKS = [['llm_merging'], ['llm_efficiency'], ['edge_llm_training', '--skip-dram']] as const;
let reportRun = { code: -1, stdout: '', stderr: '' };
let inclusiveRun = { code: -1, stdout: '', stderr: '' };

beforeAll(async () => {
  const files = designed.map((run, index) => {
    const file = path.join(workDir, 'records', `synthetic-${index}.json`);
    mkdirSync(path.dirname(file), { recursive: true });
    const record = syntheticRunRecord(run);
    writeFileSync(file, JSON.stringify(run.agent === V1_AGENT ? asVersion1Json(record) : record));
    return file;
  });
  const model = writeTinyCausalLm(path.join(workDir, 'model')).modelPath;
  const data = path.join(workDir, 'data');
  writeTinyMmlu(path.join(data, 'mmlu'));
  writeFullBlimp(path.join(data, 'blimp'));
  for (const [task, ...extra] of REAL_TASKS) {
    const file = path.join(workDir, 'records', `real-${task}.json`);
    const run = await runCli(['mlrb', task, model, '--data', data, '--agent', 'tiny-real', '--output', file, ...extra]);
    expect(run.code, run.stderr).toBe(0);
    files.push(file);
  }
  reportRun = await runCli(['report', ...files, '--out', outDir]);
  inclusiveRun = await runCli(['report', ...files, '--out', inclusiveOutDir, '--include-partial']);
});

/** A CSV file as rows keyed by its header, read with the MMLU loader's RFC 4180 parser, not the report's writer. */
function readCsvRows(file: string): Record<string, string>[] {
  const [header, ...records] = parseCsv(readFileSync(file, 'utf8'));
  const columns = header?.fields ?? [];
  return records.map((record) => Object.fromEntries(record.fields.map((value, index) => [columns[index] ?? '', value])));
}

interface ExpectedSummary {
  readonly runs: number;
  readonly successful: number;
  readonly partial: number;
  readonly counted: number;
  readonly mean: number | null;
  readonly best: { readonly label: string; readonly score: number; readonly partial: boolean } | null;
}

/**
 * MLRB's statistics of one task × agent, worked from the designed runs: a run counts when it has a score
 * and is not ineligible, and if partial only with includePartial; runs are labelled `#n` in designed order.
 */
function expectedSummary(task: string, agent: string, includePartial: boolean): ExpectedSummary {
  const group = designed.filter((run) => run.task === task && run.agent === agent);
  const labelled = group.map((run, index) => ({ run, label: `${agent} #${index + 1}` }));
  const withNumber = labelled.filter(({ run }) => run.score !== null && run.eligibility !== 'ineligible');
  const counted = withNumber.filter(({ run }) => run.partial === undefined || includePartial);
  let best: ExpectedSummary['best'] = null;
  for (const { run, label } of counted)
    if (best === null || (run.score ?? 0) > best.score) best = { label, score: run.score ?? 0, partial: run.partial !== undefined };
  return {
    runs: group.length,
    successful: withNumber.filter(({ run }) => run.partial === undefined).length,
    partial: withNumber.filter(({ run }) => run.partial !== undefined).length,
    counted: counted.length,
    mean: counted.length === 0 ? null : counted.reduce((sum, { run }) => sum + (run.score ?? 0), 0) / counted.length,
    best,
  };
}

/** summary.csv's rows of the designed (synthetic) agents, as ExpectedSummary. */
function summaryOfDesigned(dir: string): Map<string, ExpectedSummary> {
  const rows = readCsvRows(path.join(dir, 'summary.csv')).filter((row) => (AGENTS as readonly string[]).includes(row.agent ?? ''));
  const numberOrNull = (value: string | undefined): number | null => (value === undefined || value === '' ? null : Number(value));
  return new Map(
    rows.map((row) => [
      `${row.task}/${row.agent}`,
      {
        runs: Number(row.runs),
        successful: Number(row.successful),
        partial: Number(row.partial),
        counted: Number(row.counted),
        mean: numberOrNull(row.mean),
        best: row.best_run === '' ? null : { label: row.best_run ?? '', score: Number(row.best_score), partial: row.best_partial === 'true' },
      },
    ]),
  );
}
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const CHART_IDS = ['scores', 'mmlu-categories', 'blimp-fields', 'dram-margin', 'parameter-margin'];

describe('mlrb-eval report', () => {
  it('writes report.html, a PNG per chart, runs.csv and summary.csv, and no warnings', () => {
    expect(reportRun.code, reportRun.stderr).toBe(0);
    expect(reportRun.stderr).not.toContain('warning');
    expect(readdirSync(outDir).sort()).toEqual(['charts', 'report.html', 'runs.csv', 'summary.csv']);
    expect(readdirSync(path.join(outDir, 'charts')).sort()).toEqual(CHART_IDS.map((id) => `${id}.png`).sort());
    for (const id of CHART_IDS) {
      const png = readFileSync(path.join(outDir, 'charts', `${id}.png`));
      expect(png.subarray(0, 8).toString('hex'), id).toBe('89504e470d0a1a0a');
      expect(png.length, id).toBeGreaterThan(5_000);
    }
    const html = readFileSync(path.join(outDir, 'report.html'), 'utf8');
    // Self-contained: nothing is fetched and nothing runs.
    expect(html).not.toMatch(/<script|<link|src="http|href="http/i);
  });

  it('summary.csv has one row per task × agent with the designed successes', () => {
    const byKey = new Map(readCsvRows(path.join(outDir, 'summary.csv')).map((row) => [`${row.task}/${row.agent}`, row]));
    // 5 synthetic tasks × 3 agents, and the real agent's 3 tasks.
    expect(byKey.size).toBe(5 * 3 + 3);
    // agent-beta's llm_merging: 0.4, 0.44, 0.48 successful, and a partial 0.89 left out: mean 0.44, best #3.
    const beta = byKey.get('llm_merging/agent-beta');
    expect([beta?.runs, beta?.successful, beta?.partial, beta?.counted, beta?.best_run, beta?.best_partial]).toEqual([
      '4',
      '3',
      '1',
      '3',
      'agent-beta #3',
      'false',
    ]);
    expect(Number(beta?.mean)).toBeCloseTo(0.44, 12);
    expect(Number(beta?.best_score)).toBeCloseTo(0.48, 12);
    const gamma = byKey.get('edge_llm_compression/agent-gamma');
    expect([gamma?.runs, gamma?.successful, gamma?.mean]).toEqual(['3', '0', '']);
    expect([byKey.get('babylm/agent-alpha')?.runs, byKey.get('babylm/agent-alpha')?.successful]).toEqual(['4', '2']);
    expect([byKey.get('math_reasoning/agent-alpha')?.runs, byKey.get('math_reasoning/agent-alpha')?.successful]).toEqual(['3', '0']);
    const runsCsv = readFileSync(path.join(outDir, 'runs.csv'), 'utf8').trimEnd().split('\r\n');
    expect(runsCsv).toHaveLength(1 + designed.length + REAL_TASKS.length);
  });

  it.each([
    ['leaves partial runs out of mean and best by default', false],
    ['counts partial runs in mean and best with --include-partial', true],
  ] as const)('summary.csv %s', (_title, includePartial) => {
    expect((includePartial ? inclusiveRun : reportRun).code).toBe(0);
    const actual = summaryOfDesigned(includePartial ? inclusiveOutDir : outDir);
    expect(actual.size).toBe(5 * 3);
    for (const [key, summary] of actual) {
      const [task = '', agent = ''] = key.split('/');
      const expected = expectedSummary(task, agent, includePartial);
      expect({ ...summary, mean: null }, key).toEqual({
        ...expected,
        mean: null,
        best: expected.best === null ? null : { ...expected.best, score: summary.best?.score },
      });
      if (expected.mean === null) expect(summary.mean, key).toBeNull();
      else expect(summary.mean, key).toBeCloseTo(expected.mean, 12);
      if (expected.best !== null) expect(summary.best?.score, key).toBeCloseTo(expected.best.score, 12);
    }
    // The partial runs were designed to win: with the flag each agent's llm_merging best is its partial run.
    for (const agent of AGENTS) expect(actual.get(`llm_merging/${agent}`)?.best?.partial, agent).toBe(includePartial);
  });

  it('runs.csv says which runs had all of their data, and why not', () => {
    const rows = readCsvRows(path.join(outDir, 'runs.csv'));
    designed.forEach((run, index) => {
      const row = rows.find((candidate) => candidate.file?.endsWith(`synthetic-${index}.json`));
      // Complete: every suite scored whole without --limit; runs without data (score null) are not.
      const complete = run.score !== null && run.partial === undefined;
      expect(row?.complete, `synthetic-${index}`).toBe(String(complete));
      // A text cell starting with '-' gets a leading quote, so no spreadsheet reads it as a formula.
      if (run.partial === 'limit') expect(row?.incomplete).toBe("'--limit 50");
      if (run.partial === 'missing-subtasks') expect(row?.incomplete).toBe('mmlu partial: without mmlu_abstract_algebra');
    });
    const html = readFileSync(path.join(outDir, 'report.html'), 'utf8');
    const runsSection = html.slice(html.indexOf('<h2>Runs</h2>'));
    // +1: the real edge_llm_training run (no SuperGLUE data). The real llm_efficiency run (only MMLU and BLiMP data
    // given) is complete: its headline suite, MMLU, was scored whole, and the suites it lacks are extras.
    expect(runsSection.match(/<td class="incomplete">/g)).toHaveLength(designed.filter((run) => run.score === null || run.partial !== undefined).length + 1);
  });

  it('runs.csv has the model metrics of the runs that measured them; version 1 records read with none', () => {
    // Read with the MMLU loader's RFC 4180 parser, not the report's writer: headline labels hold quoted commas.
    const rows = readCsvRows(path.join(outDir, 'runs.csv'));
    const ofAgent = (agent: string) => rows.filter((row) => row.agent === agent);
    const runsPerAgent = designed.filter((run) => run.agent === V1_AGENT).length;
    expect(ofAgent(V1_AGENT)).toHaveLength(runsPerAgent);
    for (const row of ofAgent(V1_AGENT))
      expect([row.perplexity, row.perplexity_mlrb, row.tokens_per_second, row.latency_ms_per_token]).toEqual(['', '', '', '']);
    const measured = ofAgent(METRICS_AGENT);
    expect(measured).toHaveLength(runsPerAgent);
    // Attempt n (the run label's #n+1) measured perplexity 20 + n, MLRB's 5% above, 100 + 10n tokens/s, 2 + n ms per token.
    for (const row of measured) {
      const attempt = Number(row.run?.split('#')[1]) - 1;
      expect(Number(row.perplexity)).toBe(20 + attempt);
      expect(Number(row.perplexity_mlrb)).toBeCloseTo((20 + attempt) * 1.05, 12);
      expect(Number(row.tokens_per_second)).toBe(100 + 10 * attempt);
      expect(Number(row.latency_ms_per_token)).toBe(2 + attempt);
    }
    const html = readFileSync(path.join(outDir, 'report.html'), 'utf8');
    const section = html.slice(html.indexOf('<h2>Model metrics</h2>'));
    expect(section.match(/<tr><td>/g)).toHaveLength(measured.length);
  });

  it.skipIf(!hasChromium)('renders in headless Chromium without console errors, with the marks the runs call for, and a screenshot', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
      await page.goto(pathToFileURL(path.join(outDir, 'report.html')).href, { waitUntil: 'load' });
      for (const id of CHART_IDS) expect(await page.locator(`#chart-${id} > svg`).count(), id).toBe(1);

      // Panels number their marks (`mean_bars_0_marks`, `mean_bars_1_marks` …): the class is matched by its prefix.
      const marks = (chart: string, name: string): Promise<number> => page.locator(`#chart-${chart} g[class*=" ${name}_"] > path`).count();
      const scored = designed.filter((run) => run.score !== null);
      const full = scored.filter((run) => run.partial === undefined);
      const partial = scored.filter((run) => run.partial !== undefined);
      const groupKeys = (runs: readonly SyntheticRun[]): number => new Set(runs.map((run) => `${run.task}/${run.agent}`)).size;
      // One bar per task × agent with a successful run (+2: the real llm_merging and llm_efficiency runs).
      expect(await marks('scores', 'mean_bars')).toBe(groupKeys(full.filter((run) => run.eligibility !== 'ineligible')) + 2);
      // One dot per run with a number, eligible or not, partial ones included.
      expect(await marks('scores', 'run_points')).toBe(scored.length + 2);
      // Four MMLU categories per run that scored MMLU (llm_merging, edge_llm_compression), +2 real MMLU runs; of a
      // run whose folder lacked a STEM subject, STEM is partial and the other three are complete.
      const scoredSuite = (runs: readonly SyntheticRun[], suite: string): SyntheticRun[] =>
        runs.filter((run) => mlrbTaskDefinition(run.task).full.suites.some((item) => item.name === suite));
      const mmluMissing = scoredSuite(partial, 'mmlu').filter((run) => run.partial === 'missing-subtasks').length;
      expect(await marks('mmlu-categories', 'category_bars')).toBe(4 * (scoredSuite(full, 'mmlu').length + 2) + 3 * mmluMissing);
      expect(await marks('mmlu-categories', 'category_partial_bars')).toBe(mmluMissing);
      // Five BLiMP fields per synthetic babylm run with data, one (syntax) for the real llm_efficiency run; all
      // five of a --limit run are partial.
      expect(await marks('blimp-fields', 'category_bars')).toBe(5 * scoredSuite(full, 'blimp_filtered').length + 1);
      expect(await marks('blimp-fields', 'category_partial_bars')).toBe(5 * scoredSuite(partial, 'blimp_filtered').length);
      // Each chart that can show partial data says so in its legend.
      for (const id of ['scores', 'mmlu-categories', 'blimp-fields']) {
        expect(
          await page
            .locator(`#chart-${id} g[class*="role-legend-label"] text`)
            .filter({ hasText: /^partial$/ })
            .count(),
          id,
        ).toBe(1);
      }
      // A DRAM bar per edge run (+1: the real edge_llm_training run's estimate); parameters: merging and compression.
      expect(await marks('dram-margin', 'margin_bars')).toBe(designed.filter((run) => run.dramUsedBytes !== undefined).length + 1);
      expect(await marks('parameter-margin', 'margin_bars')).toBe(
        designed.filter((run) => run.task === 'llm_merging' || run.task === 'edge_llm_compression').length + 1,
      );

      const screenshot = await page.screenshot({ fullPage: true });
      expect(screenshot.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(screenshot.length).toBeGreaterThan(50_000);
      // Where asked, the screenshot is kept for people to look at (it is otherwise removed with the work folder).
      const keep = process.env.MLRB_REPORT_SCREENSHOT;
      if (keep !== undefined) writeFileSync(keep, screenshot);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
