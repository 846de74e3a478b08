/**
 * Every long command says how far it has got on stderr (in a log: `[label] N% · done/total unit · … · done`
 * lines and notes), and with --quiet prints nothing there but warnings and errors, its results unchanged on
 * stdout. Each command runs once each way on tiny generated inputs; what the progress lines count is checked
 * against what the inputs hold (two BLiMP paradigms of 5 pairs, 2 problems, 2 shards, 2 records …).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildEdgeBase, EDGE_BASE_OPTIONS, writeEdgeModel } from '../support/model-builders/edge-fixtures.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { syntheticRunRecord } from '../support/run-records.js';
import { runCli } from '../support/run-cli.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { writeTinyBlimp } from '../support/tiny-datasets.js';

const FAKE_LEAN = fileURLToPath(new URL('../support/fake-lean.mjs', import.meta.url));
const GENERATION = fileURLToPath(new URL('../fixtures/generate/', import.meta.url));
const TINY_LLAMA = fileURLToPath(new URL('../fixtures/model-metrics/tiny-llama', import.meta.url));
const RAW_TEXT = fileURLToPath(new URL('../fixtures/model-metrics/wikitext-2-raw/wiki.test.raw', import.meta.url));

let dir = '';
let model = '';
let data = '';
const file = (name: string): string => path.join(dir, name);

beforeAll(() => {
  dir = makeTempDir('progress');
  model = writeTinyCausalLm(file('model')).modelPath;
  data = file('data');
  writeTinyBlimp(path.join(data, 'blimp'), ['adjunct_island', 'anaphor_gender_agreement']);
  const problems = [
    { name: 'add_zero', informal_statement: 'n + 0 = n', informal_proof: 'by definition', formal_proof: 'theorem add_zero (n : ℕ) : n + 0 = n := rfl' },
    { name: 'two', informal_statement: '1 + 1 = 2', informal_proof: 'compute', formal_proof: 'theorem two : 1 + 1 = 2 := rfl' },
  ];
  writeFileSync(file('problems.jsonl'), problems.map((row) => JSON.stringify(row)).join('\n'));
  const records = [0, 1].map((minute) =>
    syntheticRunRecord({ task: 'llm_merging', agent: 'agent', score: 0.4 + minute / 10, eligibility: 'unchecked', parameters: 7e9, startMinute: minute }),
  );
  records.forEach((record, index) => writeFileSync(file(`run-${index}.json`), JSON.stringify(record)));
});

/** A progress line as printed to a log, finished: `[label] 100% · N/N unit · … · done`. */
const finished = (label: string, count: number, unit: string): RegExp =>
  new RegExp(`^\\[${label.replace(/[[\]()]/g, '\\$&')}\\] 100% · ${count.toLocaleString('en-US')}/${count.toLocaleString('en-US')} ${unit} · .* · done$`, 'm');

/** The command run as is and with --quiet: progress and notes the first time; warnings at most the second. */
async function bothWays(args: readonly string[]): Promise<{ loud: Awaited<ReturnType<typeof runCli>>; quiet: Awaited<ReturnType<typeof runCli>> }> {
  const loud = await runCli(args);
  expect(loud.code, loud.stderr).toBe(0);
  const quiet = await runCli([...args, '--quiet']);
  expect(quiet.code, quiet.stderr).toBe(0);
  for (const line of quiet.stderr.split('\n').filter((text) => text !== '')) expect(line).toMatch(/^warning: /);
  return { loud, quiet };
}

describe('progress on stderr, and nothing but problems with --quiet', () => {
  it('eval: a bar per suite, the summary and where results went', async () => {
    const { loud, quiet } = await bothWays([
      model,
      '--tasks',
      'blimp',
      '--allow-partial',
      '--data',
      path.join(data, 'blimp'),
      '--no-cache',
      '--output',
      file('results.json'),
    ]);
    expect(loud.stderr).toMatch(finished('blimp', 20, 'req')); // 2 paradigms × 5 pairs × 2 sentences
    expect(loud.stderr).toMatch(/^scored [\d,]+ tokens in /m);
    expect(loud.stderr).toContain(`results written to ${file('results.json')}`);
    expect(quiet.stdout).toBe(loud.stdout);
    expect(quiet.stderr).toBe('');
  });

  it('eval --shard and merge: the shard note, then the shards read and the merge under way', async () => {
    const shard = (index: number) => [
      model,
      '--tasks',
      'blimp',
      '--allow-partial',
      '--data',
      path.join(data, 'blimp'),
      '--no-cache',
      '--shard',
      `${index}/2`,
      '--output',
      file(`shard-${index}.json`),
    ];
    const first = await bothWays(shard(0));
    expect(first.loud.stderr).toMatch(/^shard 0\/2: .* written to /m);
    await runCli([...shard(1), '--quiet']);
    const { loud, quiet } = await bothWays(['merge', file('shard-0.json'), file('shard-1.json')]);
    expect(loud.stderr).toMatch(finished('merge: reading', 2, 'shards'));
    expect(loud.stderr).toContain("merge: loading the tasks' data");
    expect(loud.stderr).toContain('merged 2 of 2 shards');
    expect(quiet.stdout).toBe(loud.stdout);
    expect(quiet.stderr).toBe('');
  });

  it('mlrb: each stage, the scoring bar and the summary', async () => {
    const { loud, quiet } = await bothWays(['mlrb', 'babylm', model, '--data', data, '--allow-partial', '--no-cache', '--output', file('babylm.json')]);
    expect(loud.stderr).toContain('baby_lm: reading the data of blimp');
    expect(loud.stderr).toContain('baby_lm: scoring blimp');
    expect(loud.stderr).toMatch(finished('blimp', 20, 'req'));
    expect(loud.stderr).toContain('  headline: none (partial)');
    expect(quiet.stderr).toBe('');
  });

  // Four commands of four DRAM probes each: minutes on a busy 2-core machine, so a longer limit than the default.
  it("check-track and inspect: each check, and the DRAM probe's child loading, running and done", { timeout: 400_000 }, async () => {
    const base = buildEdgeBase({ ...EDGE_BASE_OPTIONS, maxPositions: 2048 });
    const edge = writeEdgeModel(file('edge'), base, base.model);
    const { loud, quiet } = await bothWays(['check-track', 'edge-training', edge, '--threads', '1']);
    const notes = loud.stderr.split('\n');
    expect(notes[0]).toBe('check-track edge-training: reading the graph (quantization, parameters, DRAM estimate)');
    // Probe by probe (dram/probes.ts): each one's child loading, running and done, in order.
    expect(notes[1]).toBe('DRAM probe 1 of 4 (text): loading the model as submitted in a child process, for one 2,000-token pass');
    expect(notes[2]).toMatch(/^DRAM probe 1 of 4 \(text\): loaded in \d+s; running the 2,000-token pass$/);
    expect(notes[3]).toMatch(/^DRAM probe 1 of 4 \(text\): measured in \d+s$/);
    const measured = notes.filter((note) => / measured in \d+s$/.test(note)).map((note) => /^DRAM probe (\d) of 4 \(([a-z-]+)\)/.exec(note)?.slice(1));
    expect(measured).toEqual([
      ['1', 'text'],
      ['2', 'random-ids'],
      ['3', 'repeated-id'],
      ['4', 'text-other-length'],
    ]);
    // Figures and the deciding probe (whichever peaked highest this time) aside, quiet prints the same report.
    const comparable = (stdout: string): string => stdout.replace(/[\d.]+ (MB|kB|GB|ms|s)\b/g, 'N').replace(/(largest of \d probes: )[a-z-]+/g, '$1P');
    expect(comparable(quiet.stdout)).toBe(comparable(loud.stdout));
    expect(quiet.stderr).toBe('');
    // inspect measures with the same probe, and says so the same way.
    const inspect = await bothWays(['inspect', edge, '--track', 'edge-training', '--threads', '1']);
    expect(inspect.loud.stderr.split('\n').slice(0, 3)).toEqual([
      notes[1],
      expect.stringMatching(/^DRAM probe 1 of 4 \(text\): loaded in/),
      expect.stringMatching(/^DRAM probe 1 of 4 \(text\): measured in/),
    ]);
    expect(inspect.quiet.stderr).toBe('');
  });

  it('model-metrics: a bar per timing phase and one for perplexity', async () => {
    const args = [
      'model-metrics',
      TINY_LLAMA,
      '--text',
      RAW_TEXT,
      '--warmup',
      '1',
      '--runs',
      '2',
      '--latency-warmup',
      '0',
      '--latency-runs',
      '1',
      '--max-length',
      '80',
    ];
    const { loud } = await bothWays(args);
    expect(loud.stderr).toMatch(finished('tokens-per-second warm-up', 1, 'runs'));
    expect(loud.stderr).toMatch(finished('tokens-per-second timed', 2, 'runs'));
    expect(loud.stderr).toMatch(finished('latency timed', 1, 'runs'));
    expect(loud.stderr).toMatch(/^\[perplexity\] 100% · [\d,]+\/[\d,]+ req · .* · done$/m);
    expect(loud.stderr).toMatch(/^tokens per second: /m);
  });

  it('math-reasoning: the generation over the problems, then the Lean compiles', async () => {
    const args = [
      'math-reasoning',
      path.join(GENERATION, 'llama-past.onnx'),
      '--tokenizer',
      path.join(GENERATION, 'tokenizer.json'),
      '--data',
      file('problems.jsonl'),
    ];
    const { loud, quiet } = await bothWays([...args, '--max-new-tokens', '4', '--lean', FAKE_LEAN, '--output', file('math.json')]);
    expect(loud.stderr).toMatch(finished('generating', 2, 'prompts'));
    expect(loud.stderr).toMatch(finished('Lean', 2, 'outputs'));
    expect(loud.stderr).toMatch(/ROUGE-L \(mean F\)/);
    expect(quiet.stderr).toBe('');
  });

  it('generate: the prompts as they finish', async () => {
    const { loud, quiet } = await bothWays([
      'generate',
      path.join(GENERATION, 'llama-past.onnx'),
      '--tokenizer',
      path.join(GENERATION, 'tokenizer.json'),
      '--prompt',
      'Once',
      '--prompt',
      'upon',
      '--max-new-tokens',
      '4',
    ]);
    expect(loud.stderr).toMatch(finished('generate', 2, 'prompts'));
    expect(quiet.stdout.replace(/ in [\d.]+ s \([\d.]+ tokens\/s/, '')).toBe(loud.stdout.replace(/ in [\d.]+ s \([\d.]+ tokens\/s/, ''));
    expect(quiet.stderr).toBe('');
  });

  it('report: the records read and the charts drawn', async () => {
    const { loud, quiet } = await bothWays(['report', file('run-0.json'), file('run-1.json'), '--out', file('report')]);
    expect(loud.stderr).toMatch(finished('report: reading', 2, 'records'));
    expect(loud.stderr).toMatch(/^\[report: drawing\] 100% · (\d)\/\1 charts · .* · done$/m);
    expect(loud.stderr).toMatch(/^report of 2 runs written to /m);
    expect(quiet.stdout).toBe(loud.stdout);
    expect(quiet.stderr).toBe('');
  });
});
