/**
 * lm-eval users' habits end to end: a model folder, lm-eval's flag spellings and task names, --output_path's
 * file layout, the top-level run facts, and our results file as lm-eval 0.4.13's own make_table reads it
 * (test/fixtures/lm-eval/, recorded from the wheel by scripts/lm_eval/record_expectations.sh).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { loadSuite } from '../../src/tasks/registry.js';
import { runTinyLmEvalFixture, type TinyRun } from '../support/lm-eval-tiny-run.js';
import { writeSuperGlueFixture } from '../support/superglue-fixtures.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { writeTinyBlimp, writeTinyMmlu } from '../support/tiny-datasets.js';
import { repoRoot } from '../support/shared-data.js';
import { runCli } from '../support/run-cli.js';

type Json = Record<string, unknown>;
interface MakeTableRecord {
  tables: Record<'results' | 'groups', { headers: string[]; rows: (string | number)[][] }>;
  make_table_input: Record<'results' | 'groups', Record<string, Record<string, number | string>>> & Json;
}

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'lm-eval');
const recorded = JSON.parse(readFileSync(path.join(fixtures, 'tiny-run.make_table.json'), 'utf8')) as MakeTableRecord;
const lmEvalVersions = (JSON.parse(readFileSync(path.join(fixtures, 'task-versions.json'), 'utf8')) as { versions: Record<string, number> }).versions;

const dir = makeTempDir('lm-eval-habits');
let modelDir = '';
let dataDir = '';

beforeAll(() => {
  modelDir = path.join(dir, 'model');
  writeTinyCausalLm(modelDir);
  dataDir = path.join(dir, 'data');
  writeTinyMmlu(path.join(dataDir, 'mmlu'));
  writeTinyBlimp(path.join(dataDir, 'blimp'), ['adjunct_island', 'anaphor_gender_agreement']);
});

const BLIMP_PAIR = 'blimp_adjunct_island,blimp_anaphor_gender_agreement';

/** The cells of a Markdown table printed by the CLI, without the header and separator lines. */
function tableRows(markdown: string, header: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`|${header}`) || line.match(new RegExp(`^\\|\\s*${header}\\s*\\|`)));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split('|'));
  }
  return rows;
}

describe('our results file under lm-eval 0.4.13 make_table', () => {
  let run: TinyRun;
  beforeAll(async () => {
    run = await runTinyLmEvalFixture();
  });

  it('has the fields make_table reads, as recorded when lm-eval rendered it', () => {
    expect(run.code).toBe(0);
    const input = recorded.make_table_input;
    for (const key of ['group_subtasks', 'versions', 'n-shot', 'higher_is_better'] as const) expect(run.results[key]).toEqual(input[key]);
    for (const column of ['results', 'groups'] as const) {
      const ours = run.results[column] as Record<string, Record<string, number | string>>;
      expect(Object.keys(ours)).toEqual(Object.keys(input[column]));
      for (const [name, entry] of Object.entries(input[column])) {
        expect(Object.keys(ours[name] ?? {}).sort(), name).toEqual(Object.keys(entry).sort());
        for (const [key, value] of Object.entries(entry)) {
          if (typeof value === 'number') expect(ours[name]?.[key], `${name} ${key}`).toBeCloseTo(value, 9);
          else expect(ours[name]?.[key], `${name} ${key}`).toBe(value);
        }
      }
    }
  });

  it('aliases are plain, so make_table indents each row once (" - stem", "  - anatomy")', () => {
    const labels = recorded.tables.results.rows.map((row) => String(row[0])).filter((label) => label !== '');
    expect(labels).toContain(' - stem');
    expect(labels).toContain('  - anatomy');
    expect(labels.every((label) => !/-\s+-/.test(label))).toBe(true);
    const aliases = Object.values(run.results.results as Record<string, { alias: string }>).map((entry) => entry.alias);
    expect(aliases.every((alias) => !alias.startsWith(' '))).toBe(true);
  });

  it("the CLI table has make_table's rows: order, indentation, versions, n-shot, values", () => {
    for (const [column, header] of [
      ['results', 'Tasks'],
      ['groups', 'Groups'],
    ] as const) {
      const expected = recorded.tables[column].rows.map((row) => row.map((cell, index) => (index === 0 ? String(cell).trimEnd() : String(cell).trim())));
      const ours = tableRows(run.stdout.split('\n\n')[column === 'results' ? 0 : 1] ?? '', header).map((row) =>
        row.map((cell, index) => (index === 0 ? cell.trimEnd() : cell.trim())),
      );
      expect(ours).toEqual(expected);
    }
  });
});

describe("task versions are lm-eval's (its task YAMLs)", () => {
  it('MMLU subjects and groups, BLiMP paradigms, SuperGLUE tasks', async () => {
    const mmlu = await loadSuite('mmlu', { dataDir: path.join(dataDir, 'mmlu') });
    const blimp = await loadSuite('blimp', { dataDir: path.join(dataDir, 'blimp'), paradigms: ['adjunct_island'] });
    const superglue = await loadSuite('superglue', { dataDir: writeSuperGlueFixture() });
    for (const item of [...mmlu.tasks, ...mmlu.groups, ...blimp.tasks, ...superglue.tasks]) {
      expect(item.version, item.name).toBe(lmEvalVersions[item.name]);
    }
  });

  it('the blimp group', async () => {
    const blimp = await loadSuite('blimp', { dataDir: path.join(dataDir, 'blimp'), paradigms: ['adjunct_island'] });
    expect(blimp.groups.find((group) => group.name === 'blimp')?.version).toBe(lmEvalVersions.blimp);
  });
});

describe('MODEL as a folder, --config', () => {
  it('a folder resolves to its model.onnx', async () => {
    const output = path.join(dir, 'folder-run.json');
    const run = await runCli([modelDir, '--tasks', BLIMP_PAIR, '--data', dataDir, '--quiet', '--no-cache', '--output', output]);
    expect(run.code).toBe(0);
    expect((JSON.parse(readFileSync(output, 'utf8')) as { mlrb: Json }).mlrb.model_file).toBe('model.onnx');
  });

  it('a folder with one differently named .onnx file uses it; several are an error listing them', async () => {
    const single = path.join(dir, 'single');
    mkdirSync(single);
    for (const file of ['tokenizer.json', 'tokenizer_config.json', 'config.json']) copyFileSync(path.join(modelDir, file), path.join(single, file));
    copyFileSync(path.join(modelDir, 'model.onnx'), path.join(single, 'decoder.onnx'));
    expect((await runCli([single, '--tasks', BLIMP_PAIR, '--data', dataDir, '--quiet', '--no-cache'])).code).toBe(0);
    copyFileSync(path.join(modelDir, 'model.onnx'), path.join(single, 'decoder_fp16.onnx'));
    const ambiguous = await runCli([single, '--tasks', BLIMP_PAIR, '--data', dataDir, '--quiet', '--no-cache']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(/BAD_MODEL.*2 \.onnx files.*decoder\.onnx, decoder_fp16\.onnx/);
  });

  it('--config names config.json elsewhere; its max length is the one used', async () => {
    const bare = path.join(dir, 'bare');
    mkdirSync(bare);
    for (const file of ['model.onnx', 'tokenizer.json', 'tokenizer_config.json']) copyFileSync(path.join(modelDir, file), path.join(bare, file));
    const config = JSON.parse(readFileSync(path.join(modelDir, 'config.json'), 'utf8')) as Json;
    const configFile = path.join(dir, 'configs', 'tiny.json');
    mkdirSync(path.dirname(configFile));
    writeFileSync(configFile, JSON.stringify({ ...config, max_position_embeddings: 40 }));
    const output = path.join(dir, 'config-run.json');
    const run = await runCli([bare, '--config', configFile, '--tasks', BLIMP_PAIR, '--data', dataDir, '--quiet', '--no-cache', '--output', output]);
    expect(run.code).toBe(0);
    expect((JSON.parse(readFileSync(output, 'utf8')) as Json).max_length).toBe(40);
  });
});

describe('lm-eval flags and --output_path', () => {
  it("underscore spellings, auto:N, a fractional limit, and lm-eval's results/samples files", async () => {
    const out = path.join(dir, 'lm-eval-out');
    const run = await runCli([
      modelDir,
      '--tasks',
      BLIMP_PAIR,
      '--data',
      dataDir,
      '--num_fewshot',
      '0',
      '--batch_size',
      'auto:4',
      '--limit',
      '0.5',
      '--output_path',
      out,
      '--log_samples',
      '--verbose',
      '--no_cache',
      '--quiet',
    ]);
    expect(run.stderr).toContain('auto:N: treated as auto');
    expect(run.code).toBe(0);
    const [folder, ...others] = readdirSync(out);
    expect(others).toEqual([]);
    expect(folder).toBe(modelDir.replace(/["<>:/|\\?*[\]]+/g, '__'));
    const files = readdirSync(path.join(out, folder ?? '')).sort();
    const date = /^results_(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d{6})?)\.json$/.exec(files.find((file) => file.startsWith('results_')) ?? '')?.[1];
    expect(date).toBeDefined();
    expect(files).toEqual([`results_${date}.json`, `samples_blimp_adjunct_island_${date}.jsonl`, `samples_blimp_anaphor_gender_agreement_${date}.jsonl`]);
    const results = JSON.parse(readFileSync(path.join(out, folder ?? '', `results_${date}.json`), 'utf8')) as Json;
    // --limit 0.5 of 5 pairs: lm-eval keeps ceil(5 × 0.5) = 3.
    expect((results['n-samples'] as Record<string, { effective: number }>).blimp_adjunct_island?.effective).toBe(3);
    expect((results.config as Json).limit).toBe(0.5);
    const lines = readFileSync(path.join(out, folder ?? '', `samples_blimp_adjunct_island_${date}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    expect(lines).toHaveLength(3);
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const first = lines[0] as Json & { arguments: Record<string, Record<string, string>> };
    expect(Object.keys(first).slice(0, 11)).toEqual([
      'doc_id',
      'doc',
      'target',
      'arguments',
      'resps',
      'filtered_resps',
      'filter',
      'metrics',
      'doc_hash',
      'prompt_hash',
      'target_hash',
    ]);
    expect(first.target).toBe('0');
    expect(first.prompt_hash).toBe(sha(first.arguments.gen_args_0?.arg_0 ?? 'missing'));
    expect(first.doc_hash).toBe(sha(JSON.stringify(first.doc, null, 2)));
    const taskHash = sha(lines.map((line) => `${String(line.doc_hash)}${String(line.prompt_hash)}${String(line.target_hash)}`).join(''));
    expect((results.task_hashes as Record<string, string>).blimp_adjunct_island).toBe(taskHash);
  });

  it('a model given relative to the current folder (../…) gets a visible folder, not lm-eval\'s hidden "..__…"', async () => {
    const out = path.join(dir, 'relative-out');
    const relative = path.relative(process.cwd(), modelDir);
    expect(relative.startsWith('..')).toBe(true);
    expect((await runCli([relative, '--tasks', 'blimp_adjunct_island', '--data', dataDir, '--quiet', '--no-cache', '--output_path', out])).code).toBe(0);
    expect(readdirSync(out)).toEqual([relative.replace(/^(\.\.\/)+/, '').replace(/["<>:/|\\?*[\]]+/g, '__')]);
  });

  it('the run facts lm-eval writes beside results', async () => {
    const output = path.join(dir, 'facts.json');
    const before = Date.now() / 1000;
    expect((await runCli([modelDir, '--tasks', BLIMP_PAIR, '--data', dataDir, '--quiet', '--no-cache', '--output', output])).code).toBe(0);
    const results = JSON.parse(readFileSync(output, 'utf8')) as Json;
    expect(results.date).toBeGreaterThanOrEqual(before - 1);
    expect(results.model_name).toBe(modelDir);
    expect(results.model_source).toBe('mlrb-onnx');
    expect(Number(results.total_evaluation_time_seconds)).toBeGreaterThan(0);
    expect(results.task_hashes).toEqual({});
    expect(results.tokenizer_bos_token).toEqual([expect.anything(), expect.stringMatching(/^\d+$/)]);
    for (const key of [
      'git_hash',
      'pretty_env_info',
      'transformers_version',
      'lm_eval_version',
      'upper_git_hash',
      'eot_token_id',
      'max_length',
      'system_instruction',
      'chat_template',
      'fewshot_as_multiturn',
    ]) {
      expect(results, key).toHaveProperty(key);
    }
  });

  it('a .json --output_path gets the date in its name; an impossible one is refused before scoring', async () => {
    const out = path.join(dir, 'named', 'run.json');
    expect((await runCli([modelDir, '--tasks', 'blimp_adjunct_island', '--data', dataDir, '--quiet', '--no-cache', '--output_path', out])).code).toBe(0);
    expect(readdirSync(path.dirname(out))).toEqual([expect.stringMatching(/^run_\d{4}-\d\d-\d\dT[\d.-]+\.json$/)]);
    const blocker = path.join(dir, 'a-file');
    writeFileSync(blocker, '');
    const refused = await runCli([modelDir, '--tasks', 'blimp_adjunct_island', '--data', dataDir, '--quiet', '--output_path', path.join(blocker, 'out')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--output-path .* cannot be created/);
    expect(refused.stderr).not.toContain('scored');
  });
});

describe('--tasks names and --show-breakdowns', () => {
  it('a group, a subtask and a tag run what lm-eval runs', async () => {
    const read = async (tasks: string, data: string): Promise<Json> => {
      const output = path.join(makeTempDir('tasks'), 'out.json');
      const run = await runCli([modelDir, '--tasks', tasks, '--data', data, '--quiet', '--no-cache', '--output', output]);
      expect(run.stderr, tasks).not.toContain('error');
      return JSON.parse(readFileSync(output, 'utf8')) as Json;
    };
    const stem = await read('mmlu_stem', dataDir);
    expect(Object.keys(stem.groups as Json)).toEqual(['mmlu_stem']);
    expect(Object.keys(stem.configs as Json)).toHaveLength(19);
    const anatomy = await read('mmlu_anatomy', dataDir);
    expect(anatomy.groups).toBeUndefined();
    expect(Object.keys(anatomy.results as Json)).toEqual(['mmlu_anatomy']);
    const tag = await read('super-glue-lm-eval-v1', writeSuperGlueFixture());
    expect(tag.groups).toBeUndefined();
    expect(Object.keys(tag.configs as Json).sort()).toEqual(['boolq', 'cb', 'copa', 'multirc', 'record', 'sglue_rte', 'wic', 'wsc']);
  });

  it('--tasks list prints the names --tasks takes, as lm-eval does, with no MODEL; list_tags only the tags', async () => {
    const list = await runCli(['--tasks', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^\| +Group +\| +Suite +\| +Named by +\|$/m);
    expect(list.stdout).toMatch(/^\|mmlu_anatomy +\|mmlu +\|lm-eval +\|$/m);
    expect(list.stdout).toMatch(/^\|super-glue-lm-eval-v1\|superglue\|lm-eval +\|$/m);
    expect(list.stdout).toContain('blimp_<paradigm>_filtered');
    const tags = await runCli(['--tasks', 'list_tags']);
    expect(tags.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('BAD CALL – a mistyped task is a usage error that says what was probably meant, before anything is read', async () => {
    const unknown = await runCli([path.join(dir, 'no-model-here'), '--tasks', 'mmlu_anatomyy,blimp', '--data', dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'mlrb-eval: eval: unknown task "mmlu_anatomyy"; did you mean "mmlu_anatomy"?\n' +
        "'mlrb-eval --tasks list' lists every task, group and tag\nsee 'mlrb-eval --help'\n",
    );
  });

  it('--show_breakdowns prints BLiMP by field and by linguistics_term', async () => {
    const run = await runCli([modelDir, '--tasks', BLIMP_PAIR, '--data', dataDir, '--quiet', '--no-cache', '--show_breakdowns']);
    expect(run.code).toBe(0);
    const field = tableRows(run.stdout, 'field').map((row) => row[0]?.trim());
    expect(field).toEqual(['morphology', 'syntax']);
    const term = tableRows(run.stdout, 'linguistics_term').map((row) => row.map((cell) => cell.trim()));
    // writeTinyBlimp: one paradigm per term, 5 pairs each; acc is that paradigm's own.
    expect(term.map((row) => row.slice(0, 4))).toEqual([
      ['agreement', '1', '5', 'acc'],
      ['word_order', '1', '5', 'acc'],
    ]);
  });
});
