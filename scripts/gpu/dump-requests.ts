/**
 * Writes a suite's lm-eval requests, one JSON object `{"context", "continuation"}` per line, in the order
 * mlrb-eval scores them, so that lm-eval's HF backend can be timed on exactly the same work
 * (scripts/gpu/lm_eval_loglik.py).
 *   npx tsx scripts/gpu/dump-requests.ts --suite mmlu --data DIR [--num-fewshot K] [--limit N] --output FILE
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import { isSuiteName, loadSuite, type SuiteName, type SuiteOptionsByName } from '../../src/tasks/registry.js';

const { values } = parseArgs({
  options: {
    suite: { type: 'string', default: 'mmlu' },
    data: { type: 'string' },
    'num-fewshot': { type: 'string', default: '0' },
    limit: { type: 'string' },
    output: { type: 'string' },
  },
});
if (values.data === undefined || values.output === undefined) throw new RangeError('--data and --output are required');
if (!isSuiteName(values.suite)) throw new RangeError(`unknown suite ${values.suite}`);
const suiteOptions: SuiteOptionsByName[SuiteName] = {
  dataDir: path.resolve(values.data),
  numFewshot: Number(values['num-fewshot']),
  ...(values.limit !== undefined ? { limit: Number(values.limit) } : {}),
};
const suite = await loadSuite(values.suite, suiteOptions);
const requests = suite.tasks.flatMap((task) => buildTaskRequests(task));
writeFileSync(values.output, requests.map(({ context, continuation }) => JSON.stringify({ context, continuation })).join('\n') + '\n');
process.stdout.write(`${requests.length} requests of ${values.suite} written to ${values.output}\n`);
