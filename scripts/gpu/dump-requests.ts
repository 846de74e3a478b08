/**
 * Writes a suite's lm-eval requests, one JSON object `{"context", "continuation"}` per line, in the order
 * mlrb-eval scores them, so that lm-eval's HF backend can be timed on exactly the same work
 * (scripts/gpu/lm_eval_loglik.py).
 *   npx tsx scripts/gpu/dump-requests.ts --suite mmlu --data DIR [--num-fewshot K] [--limit N] --output FILE
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadSuiteRequests } from './suite-requests.js';

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
const { requests } = await loadSuiteRequests({ ...values, data: values.data });
writeFileSync(values.output, requests.map(({ context, continuation }) => JSON.stringify({ context, continuation })).join('\n') + '\n');
process.stdout.write(`${requests.length} requests of ${values.suite} written to ${values.output}\n`);
