/**
 * Full-data exactness check (too long for `npm test`): every BLiMP pair, every MMLU 0-shot question and every
 * SuperGLUE validation request in ../shared on
 * stories260K, request by request against the independent path. Usage:
 *   npx tsx scripts/verify-full.ts [--shared ../shared] [--suite mmlu|blimp|superglue|all] [--no-cpu-fusion] [--output FILE]
 * By default the product runs as it does for users, with fused attention kernels (README, "CPU graph
 * fusion"); --no-cpu-fusion checks the exported graph's attention nodes instead.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadSuite } from '../src/tasks/registry.js';
import { compareSuiteWithReference } from '../test/support/compare-with-reference.js';

const { values } = parseArgs({
  options: {
    shared: { type: 'string', default: '../shared' },
    suite: { type: 'string', default: 'all' },
    output: { type: 'string' },
    'no-cpu-fusion': { type: 'boolean', default: false },
  },
});
const shared = path.resolve(values.shared);
const model = path.join(shared, 'models', 'stories260K', 'model.onnx');
const KNOWN = ['blimp', 'mmlu', 'superglue'] as const;
type Known = (typeof KNOWN)[number];
const isKnown = (name: string): name is Known => (KNOWN as readonly string[]).includes(name);
const suites: readonly string[] = values.suite === 'all' ? KNOWN : [values.suite];
const report: Record<string, unknown> = {};
for (const name of suites) {
  if (!isKnown(name)) throw new RangeError(`--suite must be one of ${KNOWN.join(', ')} or all`);
  const started = performance.now();
  const suite = await loadSuite(name, { dataDir: path.join(shared, 'data', name) });
  let lastReport = 0;
  const comparison = await compareSuiteWithReference(
    model,
    suite,
    (done, total) => {
      if (performance.now() - lastReport > 10_000 || done === total) {
        lastReport = performance.now();
        process.stderr.write(`[${name}] reference rows ${done}/${total}\n`);
      }
    },
    { cpuFusion: !values['no-cpu-fusion'] },
  );
  report[name] = { ...comparison, seconds: (performance.now() - started) / 1000 };
  process.stdout.write(`${name}: ${JSON.stringify(report[name])}\n`);
}
if (values.output) writeFileSync(values.output, `${JSON.stringify(report, null, 2)}\n`);
const failed = Object.values(report).some((entry) => {
  const comparison = entry as { maxAbsDiff: number; predictionMismatches: number };
  return !(comparison.maxAbsDiff < 1e-4) || comparison.predictionMismatches > 0;
});
process.exitCode = failed ? 1 : 0;
