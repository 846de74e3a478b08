/**
 * examples/slurm/'s scripts where no Slurm runs: each is run by bash with the environment Slurm gives a job
 * and stand-ins for mlrb-eval and scontrol, and the command lines they build are read back by the CLI's own
 * parser. What Slurm itself does with them (arrays, afterok, requeue) is test/e2e/slurm-array.e2e.test.ts's part.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalArgsOf, installRecordingCommands, type RecordingCommands } from '../support/recording-commands.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

const examples = path.join(repoRoot, 'examples', 'slurm');
const EVAL_ARGS = ['/models/model.onnx', '--tasks', 'blimp', '--data', '/data/blimp', '--limit', '20'];

interface ScriptRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function runScript(script: string, args: readonly string[], env: Record<string, string>): Promise<ScriptRun> {
  return new Promise((resolve) => {
    execFile('bash', [path.join(examples, script), ...args], { env, encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
}

/** A run folder, stand-ins, and the environment Slurm gives task `index` of an array. */
function arrayTask(index: string, extra: Record<string, string> = {}): { run: string; commands: RecordingCommands; env: Record<string, string> } {
  const folder = makeTempDir('slurm-script');
  const run = path.join(folder, 'run');
  mkdirSync(path.join(run, 'shards'), { recursive: true });
  const commands = installRecordingCommands(folder, ['mlrb-eval', 'scontrol']);
  const env = { PATH: commands.path, SLURM_ARRAY_TASK_ID: index, SLURM_JOB_ID: '77', SLURM_CPUS_PER_TASK: '3', ...extra };
  return { run, commands, env };
}

describe('examples/slurm/shard.sbatch', () => {
  it('runs mlrb-eval for shard I of N with its own cache folder, then links the shard file into place', async () => {
    const { run, commands, env } = arrayTask('2');
    const result = await runScript('shard.sbatch', [run, '4', ...EVAL_ARGS], env);
    expect(result.code, result.stderr).toBe(0);
    const [call] = commands.calls('mlrb-eval');
    const parsed = evalArgsOf(call);
    const attempt = path.join(run, 'shards', '.shard-2-of-4.job-77.attempt-0.json');
    expect(parsed.options).toMatchObject({
      model: '/models/model.onnx',
      suite: 'blimp',
      limit: 20,
      shard: { index: 2, count: 4 },
      cacheDir: path.join(run, 'cache', 'shard-2-of-4'),
    });
    // The passes follow the task's CPU affinity (one per CPU); a --threads would make them one pass of many threads.
    expect(parsed.options.threads).toBeUndefined();
    expect(parsed.outputs.output).toBe(attempt);
    expect(JSON.parse(readFileSync(path.join(run, 'shards', 'shard-2-of-4.json'), 'utf8'))).toEqual({ written_by: call });
    expect(readdirSync(path.join(run, 'shards'))).toEqual(['shard-2-of-4.json']);
    expect(result.stdout).toMatch(/shard-2-of-4: job 77, attempt 1, .*\n.*shard-2-of-4: written to /);
  });

  it('the flags reach mlrb-eval as given (--threads too); a requeued attempt writes under its own name', async () => {
    const { run, commands, env } = arrayTask('0', { SLURM_RESTART_COUNT: '2' });
    const result = await runScript('shard.sbatch', [run, '4', ...EVAL_ARGS, '--threads=1'], env);
    expect(result.code, result.stderr).toBe(0);
    const parsed = evalArgsOf(commands.calls('mlrb-eval')[0]);
    expect(parsed.options.threads).toBe(1);
    expect(parsed.outputs.output).toBe(path.join(run, 'shards', '.shard-0-of-4.job-77.attempt-2.json'));
    expect(result.stdout).toContain('attempt 3,');
  });

  it('a finished shard is kept: mlrb-eval does not run and the file is not touched', async () => {
    const { run, commands, env } = arrayTask('1');
    const shard = path.join(run, 'shards', 'shard-1-of-4.json');
    writeFileSync(shard, '{"finished": true}');
    const before = statSync(shard);
    const result = await runScript('shard.sbatch', [run, '4', ...EVAL_ARGS], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('finished earlier, kept');
    expect(commands.calls('mlrb-eval')).toEqual([]);
    expect(readFileSync(shard, 'utf8')).toBe('{"finished": true}');
    expect(statSync(shard).mtimeMs).toBe(before.mtimeMs);
  });

  it('a shard another run finished meanwhile is kept, and this attempt is removed', async () => {
    const { run, env } = arrayTask('3');
    const shard = path.join(run, 'shards', 'shard-3-of-4.json');
    const result = await runScript('shard.sbatch', [run, '4', ...EVAL_ARGS], { ...env, FAKE_ALSO_WRITE: shard });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('another run finished it first; kept');
    expect(JSON.parse(readFileSync(shard, 'utf8'))).toEqual({ written_by: 'another run' });
    expect(readdirSync(path.join(run, 'shards'))).toEqual(['shard-3-of-4.json']);
  });

  it('EXPECTED FAILURE – a task outside the shards, no array task, a bad N or missing arguments, or a failing mlrb-eval: refused, nothing published', async () => {
    const outside = arrayTask('4');
    const beyond = await runScript('shard.sbatch', [outside.run, '4', ...EVAL_ARGS], outside.env);
    expect(beyond.code).toBe(2);
    expect(beyond.stderr).toContain('array task 4 is outside the 4 shards');
    for (const [task, count] of [
      ['1', 'four'],
      ['1', '0'],
      ['x', '4'],
      ['-1', '4'],
    ] as const) {
      const refused = await runScript('shard.sbatch', [outside.run, count, ...EVAL_ARGS], { ...outside.env, SLURM_ARRAY_TASK_ID: task });
      expect(refused.code, `${task} of ${count}`).toBe(2);
      expect(refused.stderr).toContain(`array task ${task} is outside the ${count} shards`);
    }
    const { SLURM_ARRAY_TASK_ID: _task, ...notArray } = outside.env;
    expect((await runScript('shard.sbatch', [outside.run, '4', ...EVAL_ARGS], notArray)).stderr).toMatch(/SLURM_ARRAY_TASK_ID: not a job array task/);
    const missing = await runScript('shard.sbatch', [outside.run, '4'], outside.env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^usage: shard.sbatch RUN_DIR N MODEL/);
    expect(outside.commands.calls('mlrb-eval')).toEqual([]);
    // mlrb-eval's own failure (here: not found) fails the task, and no shard appears.
    const failing = arrayTask('0');
    const failed = await runScript('shard.sbatch', [failing.run, '4', ...EVAL_ARGS], { ...failing.env, PATH: '/usr/bin:/bin' });
    expect(failed.code).not.toBe(0);
    expect(readdirSync(path.join(failing.run, 'shards'))).toEqual([]);
  });
});

describe('examples/slurm/merge.sbatch', () => {
  it('merges shard 0 … N−1 of the run into results.json and samples.jsonl', async () => {
    const { run, commands, env } = arrayTask('0');
    const result = await runScript('merge.sbatch', [run, '4'], env);
    expect(result.code, result.stderr).toBe(0);
    const shards = [0, 1, 2, 3].map((index) => path.join(run, 'shards', `shard-${index}-of-4.json`));
    expect(commands.calls('mlrb-eval')).toEqual([
      ['merge', ...shards, '--output', path.join(run, 'results.json'), '--log-samples', path.join(run, 'samples.jsonl')],
    ]);
  });

  it('EXPECTED FAILURE – a shard count that is not a whole number from 1 is refused', async () => {
    const { run, commands, env } = arrayTask('0');
    for (const args of [[run, '0'], [run, '4; id'], [run]]) {
      const result = await runScript('merge.sbatch', args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^usage: merge.sbatch RUN_DIR N/);
    }
    expect(commands.calls('mlrb-eval')).toEqual([]);
  });
});

describe('examples/slurm/submit.sh and requeue-shard.sh', () => {
  it('EXPECTED FAILURE – submit.sh refuses a shard count that is not a whole number from 1, or a missing model, before submitting anything', async () => {
    const { run, env } = arrayTask('0');
    for (const count of ['0', 'four', '-1', '4 ', '100000']) {
      const result = await runScript('submit.sh', [run, count, ...EVAL_ARGS], env);
      expect(result.code, count).toBe(2);
      expect(result.stderr).toContain(`N must be a whole number from 1, got '${count}'`);
    }
    expect((await runScript('submit.sh', [run, '4'], env)).stderr).toMatch(/^usage: submit.sh RUN_DIR N MODEL/);
    expect(existsSync(path.join(run, 'jobs.env'))).toBe(false);
  });

  it('requeue-shard.sh requeues the task and makes the merge wait for each task by its id', async () => {
    const { run, commands, env } = arrayTask('0');
    writeFileSync(path.join(run, 'jobs.env'), 'array_job=12\nmerge_job=13\nshards=4\n');
    const result = await runScript('requeue-shard.sh', [run, '1'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(commands.calls('scontrol')).toEqual([
      ['requeue', '12_1'],
      ['update', 'JobId=13', 'Dependency=afterok:12_0:12_1:12_2:12_3'],
    ]);
  });

  it('EXPECTED FAILURE – requeue-shard.sh takes only job ids from jobs.env, and only a shard of the run', async () => {
    const { run, commands, env } = arrayTask('0');
    for (const hostile of [
      'array_job=12; touch /tmp/owned\nmerge_job=13\nshards=4\n',
      'array_job=$(id)\nmerge_job=13\nshards=4\n',
      'merge_job=13\nshards=4\n',
    ]) {
      writeFileSync(path.join(run, 'jobs.env'), hostile);
      const result = await runScript('requeue-shard.sh', [run, '1'], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('jobs.env does not name the jobs');
    }
    writeFileSync(path.join(run, 'jobs.env'), 'array_job=12\nmerge_job=13\nshards=4\n');
    for (const index of ['4', '-1', '1;id', '']) {
      const result = await runScript('requeue-shard.sh', [run, index], env);
      expect(result.code, index).toBe(2);
      expect(result.stderr).toContain(`I must be 0 … 3, got '${index}'`);
    }
    expect(commands.calls('scontrol')).toEqual([]);
  });
});
