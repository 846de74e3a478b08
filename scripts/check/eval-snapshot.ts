/**
 * A behaviour snapshot of `mlrb-eval` for refactors that must change nothing: stories260K on BLiMP, MMLU and
 * SuperGLUE (../shared/data), gsm8k and wikitext (the committed fixtures), each with a small --limit, results JSON
 * and samples written by the CLI in-process from src/ (and the table it prints); BLiMP and MMLU also through a cold and a warm score cache.
 *
 *   npx tsx scripts/check/eval-snapshot.ts record DIR        run every case into DIR
 *   npx tsx scripts/check/eval-snapshot.ts compare DIR1 DIR2 byte-compare them, timing and memory fields aside
 *
 * What is set aside is named, not guessed: the run's clock readings (date, times, throughput) and the process's
 * memory peaks, which differ between two runs of the same code, and the commit each was run from (git_hash). Everything else must match byte for byte.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';

const root = path.resolve(import.meta.dirname, '../..');
const shared = path.resolve(root, '../shared');
const model = path.join(shared, 'models/stories260K');

interface SnapshotCase {
  readonly name: string;
  readonly args: readonly string[];
  /** Run twice against one fresh score cache (cold, then warm) instead of once with --no-cache. */
  readonly cached?: boolean;
}

const CASES: readonly SnapshotCase[] = [
  { name: 'blimp', args: ['--tasks', 'blimp', '--data', path.join(shared, 'data/blimp'), '--limit', '3'] },
  { name: 'mmlu', args: ['--tasks', 'mmlu', '--data', path.join(shared, 'data/mmlu'), '--limit', '2'] },
  { name: 'superglue', args: ['--tasks', 'super-glue-lm-eval-v1', '--data', path.join(shared, 'data/superglue'), '--limit', '4', '--allow-partial'] },
  { name: 'gsm8k', args: ['--tasks', 'gsm8k', '--data', path.join(root, 'test/fixtures/tasks/gsm8k/hub'), '--limit', '2'] },
  { name: 'wikitext', args: ['--tasks', 'wikitext', '--data', path.join(root, 'test/fixtures/tasks/wikitext')] },
  { name: 'blimp-cached', args: ['--tasks', 'blimp_anaphor_gender_agreement', '--data', path.join(shared, 'data/blimp'), '--limit', '20'], cached: true },
  { name: 'mmlu-cached', args: ['--tasks', 'mmlu_anatomy', '--data', path.join(shared, 'data/mmlu'), '--limit', '5'], cached: true },
];

/** Keys whose values are clock readings or memory peaks: they differ between two runs of the same code. */
const RUN_VARYING_KEYS = new Set([
  'date',
  'start_time',
  'end_time',
  'total_evaluation_time_seconds',
  'wall_time_s',
  'scoring_time_s',
  'generation_time_s',
  'tokens_per_s',
  'peak_rss_bytes',
  'load_peak_rss_bytes',
  'scoring_peak_rss_bytes',
]);

/** Keys naming the checkout a run came from: a before/after comparison is between two commits by design. */
const CHECKOUT_KEYS = new Set(['git_hash']);

async function record(outDir: string): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  for (const { name, args, cached } of CASES) {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'mlrb-snapshot-cache-'));
    try {
      const passes = cached ? ['cold', 'warm'] : ['once'];
      for (const pass of passes) {
        const stem = path.join(outDir, cached ? `${name}-${pass}` : name);
        const cacheArgs = cached ? ['--use-cache', cacheDir] : ['--no-cache'];
        const started = Date.now();
        let [stdout, stderr] = ['', ''];
        const sink = (append: (chunk: string) => void) => ({ write: (chunk: string) => (append(chunk), true) }) as unknown as NodeJS.WritableStream;
        const io = { stdout: sink((chunk) => (stdout += chunk)), stderr: sink((chunk) => (stderr += chunk)) };
        const code = await main([model, ...args, ...cacheArgs, '--quiet', '--output', `${stem}.json`, '--log-samples', `${stem}.samples.jsonl`], io);
        if (code !== 0) throw new Error(`${name} (${pass}) exited ${code}: ${stderr}`);
        // The table printed on stdout is behaviour too.
        writeFileSync(`${stem}.table.txt`, stdout);
        console.log(`${path.basename(stem)}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }
}

/**
 * The file's bytes with each run-varying or checkout key's value masked in place: `"wall_time_s": 1.23` becomes
 * `"wall_time_s": <run-varying>`, the rest of the text untouched (JSON.parse would hide a `1.0` written as `1`).
 */
function withoutRunVarying(text: string): string {
  const keys = [...RUN_VARYING_KEYS, ...CHECKOUT_KEYS].join('|');
  // A scalar value, or an object of scalars (the memory peaks), as both writers lay them out.
  return text.replace(new RegExp(`"(${keys})":\\s*(\\{[^{}]*\\}|"[^"]*"|[-\\w.+]+)`, 'g'), '"$1": <run-varying>');
}

function compare(before: string, after: string): void {
  const files = readdirSync(before).sort();
  const afterFiles = readdirSync(after).sort();
  let differing = files.join() === afterFiles.join() ? 0 : 1;
  if (differing > 0) console.error(`different files:\n  ${files.join(' ')}\n  ${afterFiles.join(' ')}`);
  for (const file of files) {
    const [a, b] = [readFileSync(path.join(before, file), 'utf8'), readFileSync(path.join(after, file), 'utf8')];
    const verdict =
      a === b ? 'byte-identical' : withoutRunVarying(a) === withoutRunVarying(b) ? 'identical, run-varying and checkout fields aside' : 'DIFFERENT';
    if (verdict === 'DIFFERENT') differing += 1;
    console.log(`${file}: ${verdict} (${a.length} bytes)`);
  }
  console.log(differing === 0 ? `all ${files.length} files match` : `${differing} file(s) differ`);
  process.exitCode = differing === 0 ? 0 : 1;
}

const [command, first, second] = process.argv.slice(2);
if (command === 'record' && first !== undefined) await record(path.resolve(first));
else if (command === 'compare' && first !== undefined && second !== undefined) compare(path.resolve(first), path.resolve(second));
else {
  console.error('usage: eval-snapshot.ts record DIR | compare DIR1 DIR2');
  process.exitCode = 2;
}
