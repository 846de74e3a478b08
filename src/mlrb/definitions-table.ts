/**
 * The task definitions and agent_eval's model metrics as Markdown, for docs/mlrb.md: one table of what each of
 * MLRB's sources runs per task and variant, what we run and which source we follow, then each variant's
 * deliberate differences, then the model metrics with their file and line. scripts/docs/render-mlrb-tables.ts
 * writes it between the markers; a test holds the page to it.
 */
import { mathDataFetch, suiteDataFetch, wikitextDataFetch, type DataFetch } from './data-fetch.js';
import { MODEL_METRIC_DEFINITIONS } from './model-metric-sources.js';
import { MLRB_SOURCES, type MlrbSourceId, type SourceReading } from './sources.js';
import type { HeadlineRule, VariantDefinition } from './task-definition.js';
import { MINI_PREFIX, MLRB_TASK_NAMES, mlrbTaskDefinition } from './tasks.js';

export const DEFINITIONS_BEGIN = '<!-- BEGIN mlrb-definitions: generated from src/mlrb/definitions/ by scripts/docs/render-mlrb-tables.ts -->';
export const DEFINITIONS_END = '<!-- END mlrb-definitions -->';

/** The sources the table has a column for, in column order; agent_eval's task table is the same for every task. */
const COLUMNS: readonly { readonly title: string; readonly sources: readonly MlrbSourceId[] }[] = [
  { title: 'task prompt', sources: ['prompt'] },
  { title: 'run.sh', sources: ['run_sh'] },
  { title: 'run_evals.sh / run_mini_evals.sh', sources: ['run_evals_sh', 'run_mini_evals_sh'] },
  { title: 'README', sources: ['readme'] },
  { title: 'paper', sources: ['paper'] },
];

const cell = (text: string): string => text.replaceAll('|', '\\|');

function readingsCell(variant: VariantDefinition, sources: readonly MlrbSourceId[]): string {
  const readings = variant.readings.filter((reading) => sources.includes(reading.source));
  return readings.length === 0 ? '—' : readings.map((reading) => `${reading.at}: ${reading.says}`).join('; ');
}

function headlineText(headline: HeadlineRule): string {
  if (headline.kind === 'metric') return `headline \`${headline.entry}\` \`${headline.metric}\``;
  if (headline.kind === 'generated') return `headline \`${headline.metric}\` of math_reasoning (needs --lean)`;
  return 'no headline (MLRB defines none)';
}

/** The command an operator runs for the variant on what an agent handed over (MODEL: the folder or the .onnx). */
function command(name: string, variant: VariantDefinition): string {
  const math = variant.headline.kind === 'generated' ? ' --math-data DATA/math_reasoning.jsonl --lean PATH' : '';
  // The mini compression task compresses an assigned model, not Phi-2: its lineage gate needs that base.
  const base = variant.eligibility.kind === 'track' && variant.eligibility.track === 'edge-compression' && variant.suites.length === 0 ? ' --base BASE' : '';
  return `\`mlrb-eval mlrb ${name} MODEL --data DATA${math}${base}\``;
}

function weRun(variant: VariantDefinition): string {
  const suites =
    variant.suites.length === 0 ? 'no lm-eval suite' : variant.suites.map((suite) => `${suite.name}${suite.role === 'extra' ? ' (extra)' : ''}`).join(', ');
  const eligibility = variant.eligibility.kind === 'track' ? `check-track ${variant.eligibility.track}` : 'eligibility unchecked';
  const metrics = variant.modelMetrics === 'always' ? 'model metrics always' : 'model metrics with --model-metrics';
  return `${suites}; ${headlineText(variant.headline)}; ${eligibility}; ${metrics}`;
}

function followedText(reading: SourceReading): string {
  return `${MLRB_SOURCES[reading.source].label} (${reading.at})`;
}

function variants(): { readonly name: string; readonly variant: VariantDefinition }[] {
  return MLRB_TASK_NAMES.flatMap((name) => {
    const definition = mlrbTaskDefinition(name);
    return [
      { name: definition.name, variant: definition.full },
      { name: `${MINI_PREFIX}${definition.name}`, variant: definition.mini },
    ];
  });
}

/** The definitions table and each variant's differences. */
export function renderMlrbDefinitions(): string {
  const header = ['task', 'follows', ...COLUMNS.map((column) => column.title), 'we run', 'command'];
  const rows = variants().map(({ name, variant }) =>
    [
      `\`${name}\``,
      followedText(variant.followed),
      ...COLUMNS.map((column) => readingsCell(variant, column.sources)),
      weRun(variant),
      command(name, variant),
    ].map(cell),
  );
  const table = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)];
  const differences = variants().flatMap(({ name, variant }) => [
    `- \`${name}\` follows ${followedText(variant.followed)}. Why: ${variant.why}.`,
    ...variant.differences.map((difference) => `  - ${difference}.`),
  ]);
  const sources = Object.values(MLRB_SOURCES).map((source) => `\`${source.label}\`: ${source.where}`);
  return [
    `Sources: ${sources.join('; ')}. Every task and mini task also runs agent_eval's four model metrics (cli.py:54-74; table below).`,
    '',
    ...table,
    '',
    'Which source each variant follows, and our deliberate differences from it:',
    '',
    ...differences,
  ].join('\n');
}

/** agent_eval's model metrics, file and line, beside ours. */
export function renderModelMetricDefinitions(): string {
  const header = ['metric', 'agent_eval', 'what agent_eval does', 'what we do'];
  const rows = MODEL_METRIC_DEFINITIONS.map((row) => [row.metric, row.at, row.agentEval, row.ours].map(cell));
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** Where each task's data goes under --data DATA, and how to fetch it: what a record says when data is missing. */
export function renderDataTable(): string {
  const DATA = 'DATA';
  const suites = [...new Set(variants().flatMap(({ variant }) => variant.suites.map((suite) => suite.name)))];
  const rows: [string, DataFetch][] = [
    ...suites.map((suite): [string, DataFetch] => [`\`${suite}\``, suiteDataFetch(suite, DATA)]),
    ['perplexity (model metrics)', wikitextDataFetch(DATA)],
    ['math_reasoning problems', mathDataFetch(DATA)],
  ];
  // Suites that share a download (MMLU and its subjects, both ARC sets) share a row.
  const byPlace = new Map<string, { names: string[]; fetch: DataFetch }>();
  for (const [name, fetch] of rows) {
    const row = byPlace.get(fetch.place) ?? { names: [], fetch };
    row.names.push(name);
    byPlace.set(fetch.place, row);
  }
  const header = ['for', 'data', 'goes to', 'fetched with'];
  const lines = [...byPlace.values()].map(({ names, fetch }) =>
    [names.join(', '), fetch.what, `\`${fetch.place}\``, fetch.command === null ? 'by hand, as the data column says' : `\`${fetch.command}\``].map(cell),
  );
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...lines.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** All three, between the markers, as docs/mlrb.md holds them. */
export function renderMlrbTables(): string {
  return [
    DEFINITIONS_BEGIN,
    renderMlrbDefinitions(),
    '',
    "agent_eval's model metrics (ML-Research-Agent-Evals@382eddb agent_eval/):",
    '',
    renderModelMetricDefinitions(),
    '',
    'Data, for `--data DATA` (a record names the same for each suite it could not score):',
    '',
    renderDataTable(),
    DEFINITIONS_END,
  ].join('\n');
}
