/**
 * Scores a JSONL of `{"context", "continuation"}` requests (scripts/gpu/dump-requests.ts) with mlrb-eval's
 * library and times it, the twin of scripts/gpu/lm_eval_loglik.py for lm-eval's HF backend: the same
 * requests, the same weights, the same device.
 *   npx tsx scripts/gpu/score-requests-file.ts --model M.onnx --requests R.jsonl [--provider cuda|cpu]
 *     [--batch-size N|auto] [--tokens-per-batch N] [--output LOGLIKS.jsonl]
 * Prints one JSON line: load and scoring seconds (tokenization included, as lm-eval's loglikelihood() has
 * it), the tokens the passes computed and the batch statistics. LOGLIKS.jsonl holds `[loglik, isGreedy]`
 * per request, in input order.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { buildModelInputs } from '../../src/eval/text-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    requests: { type: 'string' },
    provider: { type: 'string', default: 'cuda' },
    'batch-size': { type: 'string', default: 'auto' },
    'tokens-per-batch': { type: 'string' },
    output: { type: 'string' },
  },
});
if (values.model === undefined || values.requests === undefined) throw new RangeError('--model and --requests are required');
if (values.provider !== 'cuda' && values.provider !== 'cpu') throw new RangeError('--provider is cuda or cpu');
const requests = readFileSync(values.requests, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as { context: string; continuation: string });

const loadStarted = performance.now();
const model = await loadModel({ model: path.resolve(values.model), provider: values.provider });
const loadSeconds = (performance.now() - loadStarted) / 1000;
const started = performance.now();
const inputs = buildModelInputs(model, requests, (index) => `request ${index}`);
const tokenizeSeconds = (performance.now() - started) / 1000;
const batchSize = values['batch-size'] === 'auto' ? 'auto' : Number(values['batch-size']);
const { results, stats } = await scoreModelInputs(model, inputs, {
  batchSize,
  ...(values['tokens-per-batch'] !== undefined ? { tokensPerBatch: Number(values['tokens-per-batch']) } : {}),
});
const seconds = (performance.now() - started) / 1000;
model.dispose();
if (values.output !== undefined) writeFileSync(values.output, results.map((result) => JSON.stringify([result.loglik, result.isGreedy])).join('\n') + '\n');
process.stdout.write(
  `${JSON.stringify({ model: values.model, provider: model.provider, requests: requests.length, loadSeconds, tokenizeSeconds, seconds, stats })}\n`,
);
