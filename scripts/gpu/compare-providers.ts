/**
 * GPU exactness check (issue 17): scores every request of a suite with a model on the CUDA provider and
 * with a reference model on the CPU provider (the same model, or its fp32 twin for fp16 / bf16 exports), and
 * compares request by request. Both sides run the product's request building; the CPU path is the one
 * checked against lm-eval and the independent reference (scripts/verify-full.ts).
 *   npx tsx scripts/gpu/compare-providers.ts --model M.onnx [--reference REF.onnx] --suite mmlu --data DIR
 *     [--num-fewshot K] [--limit N] [--tolerance 1e-4] [--near-tie 1e-2] [--output FILE] [--provider cuda|cpu]
 *     [--reference-cache FILE]
 * Prints one JSON line and exits 1 when a loglik differs by more than the tolerance or a prediction differs
 * where the reference's two best choices are further apart than --near-tie.
 * Run it with MLRB_ORT_LIBRARY naming an ORT build with the CUDA provider beside it (README, "GPU (CUDA)").
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { buildModelInputs } from '../../src/eval/text-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadSuiteRequests } from './suite-requests.js';
import { isMultipleChoice } from '../../src/tasks/types.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    reference: { type: 'string' },
    suite: { type: 'string', default: 'mmlu' },
    data: { type: 'string' },
    'num-fewshot': { type: 'string', default: '0' },
    limit: { type: 'string' },
    tolerance: { type: 'string', default: '1e-4' },
    'near-tie': { type: 'string', default: '1e-2' },
    output: { type: 'string' },
    // The tested side's provider: cuda, or cpu to try the script where there is no GPU.
    provider: { type: 'string', default: 'cuda' },
    // Reuse the reference side's results across runs (several exports of one model against its fp32 twin).
    'reference-cache': { type: 'string' },
  },
});
if (values.model === undefined || values.data === undefined) throw new RangeError('--model and --data are required');
const tolerance = Number(values.tolerance);
const nearTie = Number(values['near-tie']);
const { suite, requests } = await loadSuiteRequests({ ...values, data: values.data });
const targets = new Map<string, number>(
  suite.tasks.filter(isMultipleChoice).flatMap((task) => task.docs.map((doc) => [`${task.name}#${doc.docId}`, doc.target] as const)),
);

async function scoreOn(modelPath: string, provider: 'cpu' | 'cuda') {
  const loadStarted = performance.now();
  const model = await loadModel({ model: path.resolve(modelPath), provider });
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  try {
    const inputs = buildModelInputs(model, requests, (index) => `request ${index}`);
    const started = performance.now();
    const { results, stats } = await scoreModelInputs(model, inputs);
    return { provider: model.provider, loadSeconds, scoreSeconds: (performance.now() - started) / 1000, results, stats };
  } finally {
    model.dispose();
  }
}

if (values.provider !== 'cuda' && values.provider !== 'cpu') throw new RangeError('--provider is cuda or cpu');
const gpu = await scoreOn(values.model, values.provider);
type Scored = Pick<Awaited<ReturnType<typeof scoreOn>>, 'loadSeconds' | 'scoreSeconds' | 'results'>;
const cacheFile = values['reference-cache'];
let cpu: Scored;
if (cacheFile !== undefined && existsSync(cacheFile)) {
  cpu = JSON.parse(readFileSync(cacheFile, 'utf8')) as Scored;
  if (cpu.results.length !== requests.length) throw new Error(`${cacheFile} holds ${cpu.results.length} results for ${requests.length} requests`);
} else {
  cpu = await scoreOn(values.reference ?? values.model, 'cpu');
  if (cacheFile !== undefined) writeFileSync(cacheFile, JSON.stringify({ loadSeconds: cpu.loadSeconds, scoreSeconds: cpu.scoreSeconds, results: cpu.results }));
}

let maxAbsDiff = 0;
let worstRequest = -1;
let greedyMismatches = 0;
cpu.results.forEach((expected, index) => {
  const actual = gpu.results[index];
  const diff = Math.abs((actual?.loglik ?? Number.NaN) - expected.loglik);
  if (!(diff <= maxAbsDiff)) {
    maxAbsDiff = diff;
    worstRequest = index;
  }
  if (actual?.isGreedy !== expected.isGreedy) greedyMismatches += 1;
});

// Predictions per document: the first argmax of the choices' logliks, as lm-eval's acc takes it.
const byDoc = new Map<string, { gpu: number[]; cpu: number[] }>();
requests.forEach((request, index) => {
  const key = `${request.taskName}#${request.docId}`;
  const entry = byDoc.get(key) ?? { gpu: [], cpu: [] };
  entry.gpu[request.choiceIndex] = gpu.results[index]?.loglik ?? Number.NaN;
  entry.cpu[request.choiceIndex] = cpu.results[index]?.loglik ?? Number.NaN;
  byDoc.set(key, entry);
});
const firstArgmax = (scores: readonly number[]): number => scores.reduce((best, value, index) => (value > (scores[best] as number) ? index : best), 0);
let predictionMismatches = 0;
let nearTieMismatches = 0;
let gpuCorrect = 0;
let cpuCorrect = 0;
for (const [key, entry] of byDoc) {
  const gpuChoice = firstArgmax(entry.gpu);
  const cpuChoice = firstArgmax(entry.cpu);
  if (gpuChoice === targets.get(key)) gpuCorrect += 1;
  if (cpuChoice === targets.get(key)) cpuCorrect += 1;
  if (gpuChoice === cpuChoice) continue;
  // A near-tie: the reference itself puts the GPU's choice within nearTie of its own.
  if (Math.abs((entry.cpu[cpuChoice] as number) - (entry.cpu[gpuChoice] as number)) <= nearTie) nearTieMismatches += 1;
  else predictionMismatches += 1;
}

const report = {
  model: values.model,
  reference: values.reference ?? values.model,
  suite: values.suite,
  numFewshot: Number(values['num-fewshot']),
  requests: requests.length,
  documents: byDoc.size,
  maxAbsDiff,
  worstRequest: worstRequest >= 0 ? { index: worstRequest, gpu: gpu.results[worstRequest]?.loglik, cpu: cpu.results[worstRequest]?.loglik } : null,
  greedyMismatches,
  predictionMismatches,
  nearTieMismatches,
  accuracy: { gpu: gpuCorrect / byDoc.size, cpu: cpuCorrect / byDoc.size },
  seconds: { gpuLoad: gpu.loadSeconds, gpuScore: gpu.scoreSeconds, cpuLoad: cpu.loadSeconds, cpuScore: cpu.scoreSeconds },
  gpuStats: gpu.stats,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
if (values.output !== undefined) writeFileSync(values.output, `${JSON.stringify(report, null, 2)}\n`);
process.exitCode = maxAbsDiff <= tolerance && predictionMismatches === 0 ? 0 : 1;
