/**
 * The report at scale: `mlrb-eval report` over RUNS synthetic run records (default 10,000) of every edge and
 * full task, 20 agents, some partial, with model metrics and DRAM facts, in a fresh child process, reporting
 * its wall time, peak RSS and the output's size. Target (issue 26): under a minute and under 1 GB RSS for 10,000
 * records; the per-run charts aggregate past a few hundred runs (src/report/charts.ts).
 *   npx tsx bench/report-scale.ts [RUNS]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { syntheticRunRecord, type SyntheticRun } from '../test/support/run-records.js';

const TASKS = ['llm_merging', 'llm_efficiency', 'babylm', 'minipile', 'edge_llm_compression', 'edge_llm_training'] as const;
const ELIGIBILITY = ['eligible', 'unchecked', 'ineligible', 'not_judged'] as const;
const TARGET = { seconds: 60, rssBytes: 1024 ** 3 } as const;

const runs = Number(process.argv[2] ?? 10_000);
const root = mkdtempSync(path.join(tmpdir(), 'mlrb-report-scale-'));

try {
  const recordDir = path.join(root, 'records');
  mkdirSync(recordDir);
  for (let index = 0; index < runs; index += 1) {
    const task = TASKS[index % TASKS.length] as (typeof TASKS)[number];
    const run: SyntheticRun = {
      task,
      agent: `agent-${index % 20}`,
      score: index % 11 === 0 ? null : 0.25 + ((index * 7919) % 700) / 1000,
      eligibility: ELIGIBILITY[index % ELIGIBILITY.length] as (typeof ELIGIBILITY)[number],
      parameters: 1e9 + (index % 50) * 1e7,
      ...(task.startsWith('edge') ? { dramUsedBytes: 4e8 + (index % 90) * 1e7 } : {}),
      startMinute: index,
      ...(index % 3 === 0 ? { modelMetrics: { perplexity: 12 + (index % 9), tokensPerSecond: 40 + (index % 13), latencyMsPerToken: 20 + (index % 7) } } : {}),
      ...(index % 13 === 0 ? { partial: 'limit' as const } : {}),
    };
    writeFileSync(path.join(recordDir, `run-${index}.json`), JSON.stringify(syntheticRunRecord(run)));
  }
  const outDir = path.join(root, 'report');
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'parts', 'report-child.ts');
  const started = performance.now();
  const output = execFileSync(process.execPath, ['--import', tsx, child, outDir, recordDir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  const { peakRssBytes } = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as { peakRssBytes: number };
  const files = readdirSync(outDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const bytes = files.reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).size, 0);
  const largest = files
    .map((entry) => ({ name: path.relative(outDir, path.join(entry.parentPath, entry.name)), size: statSync(path.join(entry.parentPath, entry.name)).size }))
    .sort((a, b) => b.size - a.size)[0];
  console.log(
    `report over ${runs.toLocaleString('en-US')} records: ${seconds.toFixed(1)} s, peak RSS ${(peakRssBytes / 1024 ** 2).toFixed(0)} MB, ${files.length} files, ${(bytes / 1024 ** 2).toFixed(1)} MB (largest ${largest?.name} ${((largest?.size ?? 0) / 1024).toFixed(0)} kB)`,
  );
  const met = seconds < TARGET.seconds && peakRssBytes < TARGET.rssBytes;
  console.log(met ? `within the target (under ${TARGET.seconds} s and 1 GB)` : `OVER the target (${TARGET.seconds} s, 1 GB)`);
  if (!met) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
