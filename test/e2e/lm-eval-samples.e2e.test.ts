/**
 * The samples files (`--output-path … --log-samples`) field for field against real lm-eval 0.4.13's, for every
 * suite mlrb-eval scores: stories260K (../shared) and its transformers export scored by each, on the same
 * fixture data, --limit 3 (scripts/lm_eval/record_sample_fields.py recorded lm-eval's side). Text fields, the
 * document (key order included: doc_hash is over its JSON), the hashes and the metric names must be equal;
 * log-likelihoods, written as Python's str of a float, agree to ONNX Runtime's fp32 accuracy against torch's.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { hasShared, repoRoot, sharedPaths } from '../support/shared-data.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Sample = { [field: string]: Json };
interface Recorded {
  readonly limit: number;
  readonly runs: readonly { readonly data: string; readonly tasks: readonly string[]; readonly samples: Readonly<Record<string, readonly Sample[]>> }[];
}

const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'lm-eval', '0.4.13', 'stories260K-samples.json'), 'utf8')) as Recorded;
const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-samples-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** fp32 log-likelihoods from two runtimes: a few ulps of the sum over a continuation's tokens. */
const TOLERANCE = 2e-6;
const FLOAT = /^-?(\d+\.\d+(e[+-]\d{2,})?|\d+e[+-]\d{2,}|inf|nan)$/;

/** Compares a response or metric value: strings that hold floats by value, everything else exactly. */
function expectSameValue(ours: Json | undefined, theirs: Json, where: string): void {
  if (typeof theirs === 'string' && FLOAT.test(theirs)) {
    expect(ours, where).toMatch(FLOAT); // spelled as Python's str of a float, as sanitize_list leaves it
    expect(Math.abs(Number(ours) - Number(theirs)), where).toBeLessThanOrEqual(TOLERANCE * Math.max(1, Math.abs(Number(theirs))));
  } else if (typeof theirs === 'number') {
    expect(typeof ours, where).toBe('number');
    expect(Math.abs((ours as number) - theirs), where).toBeLessThanOrEqual(TOLERANCE * Math.max(1, Math.abs(theirs)));
  } else if (Array.isArray(theirs)) {
    expect(Array.isArray(ours) && ours.length, where).toBe(theirs.length);
    theirs.forEach((item, index) => expectSameValue((ours as Json[])[index], item, `${where}[${index}]`));
  } else {
    expect(ours, where).toEqual(theirs);
  }
}

/** Our samples file of `task` in the --output-path folder (one model folder inside). */
function ourSamples(outputPath: string, task: string): Sample[] {
  const [modelFolder] = readdirSync(outputPath);
  const folder = path.join(outputPath, modelFolder ?? '');
  const file = readdirSync(folder).find((name) => name.startsWith(`samples_${task}_`) && name.endsWith('.jsonl'));
  expect(file, `samples file of ${task}`).toBeDefined();
  return readFileSync(path.join(folder, file ?? ''), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Sample);
}

const EXACT_FIELDS = ['doc_id', 'target', 'arguments', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash'] as const;

describe.skipIf(!hasShared)('samples files field for field against lm-eval 0.4.13 (stories260K)', () => {
  it.each(recorded.runs.map((run, index) => ({ ...run, index, label: run.tasks.join(',') })))('$label', async ({ data, tasks, samples, index }) => {
    const outputPath = path.join(workDir, `run${index}`);
    const run = await runCli([
      sharedPaths.stories,
      '--tasks',
      tasks.join(','),
      '--data',
      path.join(repoRoot, data),
      '--limit',
      String(recorded.limit),
      '--lm-eval-version',
      '0.4.13',
      '--output-path',
      outputPath,
      '--log-samples',
      '--no-cache',
      '--quiet',
    ]);
    expect(run.code, run.stderr).toBe(0);
    for (const task of tasks) {
      const theirs = samples[task] ?? [];
      const ours = ourSamples(outputPath, task);
      expect(
        ours.map((sample) => sample['doc_id']),
        task,
      ).toEqual(theirs.map((sample) => sample['doc_id']));
      theirs.forEach((expected, position) => {
        const actual = ours[position] ?? {};
        const where = `${task} doc ${String(expected['doc_id'])}`;
        expect(Object.keys(actual), where).toEqual(Object.keys(expected));
        // The document with its keys in lm-eval's order (doc_hash below is over this JSON).
        expect(JSON.stringify(actual['doc']), `${where} doc`).toBe(JSON.stringify(expected['doc']));
        for (const field of EXACT_FIELDS) expect(actual[field], `${where} ${field}`).toEqual(expected[field]);
        expectSameValue(actual['resps'], expected['resps'] ?? null, `${where} resps`);
        expectSameValue(actual['filtered_resps'], expected['filtered_resps'] ?? null, `${where} filtered_resps`);
        for (const metric of expected['metrics'] as string[]) expectSameValue(actual[metric], expected[metric] ?? null, `${where} ${metric}`);
      });
    }
  });
});
