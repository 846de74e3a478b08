/**
 * Runs a suite through the product (request building + native scoring) and through the independent path
 * (onnxruntime-node JS, batch 1, full logits, float64 log-softmax), request by request. Request building is
 * shared on purpose: it is checked by hand-worked unit tests; this compares the numbers the model produces.
 */
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { buildModelInputs } from '../../src/eval/text-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { isMultipleChoice, type Suite } from '../../src/tasks/types.js';
import { createReferenceScorer, scoreContinuation } from './reference-scorer.js';

export interface Comparison {
  readonly requests: number;
  readonly maxAbsDiff: number;
  readonly greedyMismatches: number;
  /** Documents whose predicted choice (first argmax) differs between the paths. */
  readonly predictionMismatches: number;
  readonly documents: number;
  /** Accuracy from each path's logliks, over all documents. */
  readonly productAccuracy: number;
  readonly referenceAccuracy: number;
}

const firstArgmax = (values: readonly number[]): number => values.reduce((best, value, index) => (value > (values[best] as number) ? index : best), 0);

export async function compareSuiteWithReference(
  modelPath: string,
  suite: Suite,
  onRow?: (done: number, total: number) => void,
  load: { readonly cpuFusion?: boolean } = {},
): Promise<Comparison> {
  const model = await loadModel({ model: modelPath, ...load });
  const requests = suite.tasks.filter(isMultipleChoice).flatMap((task) => buildTaskRequests(task));
  const inputs = buildModelInputs(model, requests, (index) => `request ${index}`);
  const { results } = await scoreModelInputs(model, inputs);
  model.dispose();

  const reference = await createReferenceScorer(modelPath);
  const rows = new Map<string, number[]>();
  inputs.forEach((input, index) => {
    const key = input.inputTokens.join(',');
    rows.set(key, [...(rows.get(key) ?? []), index]);
  });
  const referenceLogliks = new Array<number>(inputs.length);
  let maxAbsDiff = 0;
  let greedyMismatches = 0;
  let done = 0;
  for (const indices of rows.values()) {
    const logits = await reference.logitsFor((inputs[indices[0] as number] ?? { inputTokens: [] }).inputTokens);
    for (const index of indices) {
      const expected = scoreContinuation(logits, (inputs[index] as (typeof inputs)[number]).continuationTokens);
      const actual = results[index] as (typeof results)[number];
      referenceLogliks[index] = expected.loglik;
      maxAbsDiff = Math.max(maxAbsDiff, Math.abs(expected.loglik - actual.loglik));
      if (expected.isGreedy !== actual.isGreedy) greedyMismatches += 1;
    }
    done += 1;
    onRow?.(done, rows.size);
  }
  await reference.dispose();

  const byDoc = new Map<string, { product: number[]; reference: number[]; target: number }>();
  const targets = new Map<string, number>(
    suite.tasks.filter(isMultipleChoice).flatMap((task) => task.docs.map((doc) => [`${task.name}#${doc.docId}`, doc.target] as const)),
  );
  requests.forEach((request, index) => {
    const key = `${request.taskName}#${request.docId}`;
    const entry = byDoc.get(key) ?? { product: [], reference: [], target: targets.get(key) ?? -1 };
    entry.product[request.choiceIndex] = (results[index] as (typeof results)[number]).loglik;
    entry.reference[request.choiceIndex] = referenceLogliks[index] as number;
    byDoc.set(key, entry);
  });
  let predictionMismatches = 0;
  let productCorrect = 0;
  let referenceCorrect = 0;
  for (const entry of byDoc.values()) {
    const productPrediction = firstArgmax(entry.product);
    const referencePrediction = firstArgmax(entry.reference);
    if (productPrediction !== referencePrediction) predictionMismatches += 1;
    if (productPrediction === entry.target) productCorrect += 1;
    if (referencePrediction === entry.target) referenceCorrect += 1;
  }
  return {
    requests: inputs.length,
    maxAbsDiff,
    greedyMismatches,
    predictionMismatches,
    documents: byDoc.size,
    productAccuracy: productCorrect / byDoc.size,
    referenceAccuracy: referenceCorrect / byDoc.size,
  };
}
