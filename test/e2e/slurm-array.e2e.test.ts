/**
 * The Slurm recipe of docs/scale-out.md, run as shipped (examples/slurm/) on a real Slurm: Debian's slurmctld and
 * slurmd, started for this file by scripts/slurm/start-local.sh. stories260K scores BLiMP as a job array of 4
 * shards and a merge job that waits for them (afterok); the merged results must equal an unsharded run's. Tasks
 * are interrupted the two ways a cluster interrupts them (a requeue of a running task, as preemption does; a
 * scancel, then a requeue by hand) and must resume from their score caches and still give the same results.
 *
 * Of the full tier (npm run test:full): about a minute of scoring and scheduling on 2 cores, and it needs root.
 * There, skipped, saying why, where Slurm is not installed or the tests do not run as root; CI installs Slurm
 * (scripts/slurm/install.sh) and sets MLRB_REQUIRE_SLURM=1, which turns that skip into a failure.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalSlurm, readIfPresent, slurmUnavailableReason, waitFor } from '../support/local-slurm.js';
import { withoutProcessFacts } from '../support/process-facts.js';
import { hasShared, repoRoot, sharedPaths } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { FULL_TIER } from '../support/test-tier.js';

const SHARDS = 4;
// 200 pairs of each of BLiMP's 67 paradigms: a shard scores 6,700 requests, long enough (several seconds when the
// four share two cores) to be interrupted part-way.
const EVAL_ARGS = [sharedPaths.stories, '--tasks', 'blimp', '--data', sharedPaths.blimp, '--limit', '200'];
const JOB_TIMEOUT_MS = 240_000;

const unavailable = hasShared ? slurmUnavailableReason() : '../shared (stories260K, BLiMP) is missing';
const required = process.env.MLRB_REQUIRE_SLURM === '1';
/** Why these tests do not run here, or undefined where they run (and fail without Slurm when it is required). */
const skipReason = !FULL_TIER ? 'full tier only (npm run test:full)' : required ? undefined : unavailable;
const title = `Slurm job array of examples/slurm/ on a private single-node Slurm${skipReason ? ` (skipped: ${skipReason})` : ''}`;
if (skipReason !== undefined) console.warn(`[slurm-array.test] Slurm tests SKIPPED: ${skipReason}`);

const examples = path.join(repoRoot, 'examples', 'slurm');
const readJson = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

interface SubmittedRun {
  readonly folder: string;
  readonly arrayJob: string;
  readonly mergeJob: string;
}

describe.skipIf(skipReason !== undefined)(title, () => {
  const workDir = makeTempDir('slurm');
  let slurm: LocalSlurm | undefined;
  let unsharded: Record<string, unknown>;
  const unshardedSamples = path.join(workDir, 'unsharded.jsonl');

  beforeAll(async () => {
    if (unavailable !== undefined) throw new Error(`MLRB_REQUIRE_SLURM=1, but ${unavailable}`);
    const wholeFile = path.join(workDir, 'unsharded.json');
    const whole = await runNode([
      path.join(repoRoot, 'bin', 'mlrb-eval.js'),
      ...EVAL_ARGS,
      '--quiet',
      '--no-cache',
      '--output',
      wholeFile,
      '--log-samples',
      unshardedSamples,
    ]);
    expect(whole.code, whole.stderr).toBe(0);
    unsharded = readJson(wholeFile);
    slurm = await LocalSlurm.start(path.join(workDir, 'cluster'));
  });

  afterAll(async () => {
    await slurm?.stop();
  });

  const cluster = (): LocalSlurm => slurm as LocalSlurm;

  async function submit(folder: string): Promise<SubmittedRun> {
    await cluster().mustRun(path.join(examples, 'submit.sh'), [folder, String(SHARDS), ...EVAL_ARGS]);
    const jobs = readFileSync(path.join(folder, 'jobs.env'), 'utf8');
    const field = (name: string): string => /^(\d+)$/m.exec(jobs.match(new RegExp(`^${name}=(.*)$`, 'm'))?.[1] ?? '')?.[1] ?? '';
    expect(field('shards')).toBe(String(SHARDS));
    return { folder, arrayJob: field('array_job'), mergeJob: field('merge_job') };
  }

  const shardLog = (run: SubmittedRun, index: number): string => path.join(run.folder, 'logs', `shard-${index}-of-${SHARDS}.log`);
  const shardFile = (run: SubmittedRun, index: number): string => path.join(run.folder, 'shards', `shard-${index}-of-${SHARDS}.json`);

  /**
   * Waits until shard `index` has logged at least a tenth of its work and not all of it: every pass it reported is
   * in its score cache and some are still to come. A shard that ends first fails the test at once, saying so,
   * rather than being "interrupted" after it finished.
   */
  async function waitForProgress(run: SubmittedRun, index: number): Promise<void> {
    await waitFor(
      () => {
        const log = readIfPresent(shardLog(run, index));
        if (/\[blimp\] 100% /.test(log)) throw new Error(`shard ${index} finished before it could be interrupted (raise --limit):\n${log}`);
        return /\[blimp\] [1-9]\d?% /.test(log);
      },
      JOB_TIMEOUT_MS,
      () => `shard ${index} to report progress:\n${readIfPresent(shardLog(run, index))}`,
    );
  }

  /** The merge job's end: COMPLETED, and the merged results and samples equal the unsharded run's but for the process facts. */
  async function expectMergedEqualsUnsharded(run: SubmittedRun): Promise<void> {
    const merge = await cluster().waitForJob(run.mergeJob, JOB_TIMEOUT_MS);
    expect(merge.state, readIfPresent(path.join(run.folder, 'logs', 'merge.log'))).toBe('COMPLETED');
    const merged = readJson(path.join(run.folder, 'results.json'));
    expect((merged.mlrb as Record<string, unknown>).shards).toEqual({ count: SHARDS, missing: [] });
    expect(JSON.stringify(withoutProcessFacts(merged), null, 2)).toBe(JSON.stringify(withoutProcessFacts(unsharded), null, 2));
    // Every document's log-likelihoods, not only the accuracies they add up to.
    expect(readFileSync(path.join(run.folder, 'samples.jsonl'), 'utf8') === readFileSync(unshardedSamples, 'utf8')).toBe(true);
    // Attempt files are linked into place and removed; none is left behind.
    expect(readdirSync(path.join(run.folder, 'shards')).sort()).toEqual(
      Array.from({ length: SHARDS }, (_, index) => `shard-${index}-of-${SHARDS}.json`).sort(),
    );
  }

  /** Shard `index` was written by a second attempt that took part of its scores from the first one's cache. */
  function expectResumedFromCache(run: SubmittedRun, index: number): void {
    const record = readJson(shardFile(run, index)) as { run: { requests: number; score_cache: { hits: number; misses: number } } };
    const { hits, misses } = record.run.score_cache;
    expect(hits, 'scores stored before the interruption are reused').toBeGreaterThan(0);
    expect(hits + misses).toBe(record.run.requests);
    expect(misses, 'the interruption came part-way').toBeGreaterThan(0);
    const log = readFileSync(shardLog(run, index), 'utf8');
    expect(log).toMatch(/attempt 1,[\s\S]*attempt 2,/);
    expect(log).toContain(`requests from the score cache`);
  }

  it(
    '4 array tasks then the afterok merge give the unsharded results; a task requeued while running (as preemption does) resumes from its cache; a resubmission keeps every finished shard',
    async () => {
      const run = await submit(path.join(workDir, 'run-preempted'));
      await waitForProgress(run, 2);
      // What PreemptMode=REQUEUE does: the running task is ended and queued again; the merge's afterok holds.
      await cluster().mustRun('scontrol', ['requeue', `${run.arrayJob}_2`]);
      await expectMergedEqualsUnsharded(run);
      expectResumedFromCache(run, 2);
      expect((await cluster().jobState(`${run.arrayJob}_2`)).restarts).toBe(1);

      // The same command again: every task finds its shard finished and leaves it as it is.
      const finished = Array.from({ length: SHARDS }, (_, index) => ({
        bytes: readFileSync(shardFile(run, index)),
        inode: statSync(shardFile(run, index)).ino,
      }));
      const again = await submit(run.folder);
      await expectMergedEqualsUnsharded(again);
      for (const [index, { bytes, inode }] of finished.entries()) {
        expect(readFileSync(shardFile(run, index)).equals(bytes)).toBe(true);
        expect(statSync(shardFile(run, index)).ino).toBe(inode);
        expect(readFileSync(shardLog(run, index), 'utf8')).toMatch(/finished earlier, kept/);
      }
    },
    3 * JOB_TIMEOUT_MS,
  );

  it(
    'a task cancelled with scancel, then requeued with requeue-shard.sh, resumes from its cache and the merge gives the unsharded results',
    async () => {
      const run = await submit(path.join(workDir, 'run-cancelled'));
      await waitForProgress(run, 1);
      await cluster().mustRun('scancel', [`${run.arrayJob}_1`]);
      await cluster().waitForJob(`${run.arrayJob}_1`, JOB_TIMEOUT_MS);
      await cluster().mustRun(path.join(examples, 'requeue-shard.sh'), [run.folder, '1']);
      await expectMergedEqualsUnsharded(run);
      expectResumedFromCache(run, 1);
    },
    2 * JOB_TIMEOUT_MS,
  );
});

function runNode(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...args], { encoding: 'utf8', timeout: JOB_TIMEOUT_MS }, (error, _stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stderr }),
    );
  });
}
