/**
 * 5-shot MMLU with and without few-shot prefix reuse, on a model with KV-cache inputs: the same requests,
 * the same session, one run after the other. Reports the speed-up and how far the two paths' logliks and
 * predictions drift apart (they must not: reuse is exact).
 */
import { scoreModelInputs, type ScoreStats } from '../../src/engine/score-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadSuite } from '../../src/tasks/registry.js';
import type { BenchModel } from '../models/bench-models.js';
import { suiteInputs } from './workloads.js';

export interface PrefixReuseResult {
  readonly workload: string;
  readonly requests: number;
  readonly withReuseSeconds: number;
  readonly withoutReuseSeconds: number;
  readonly withReuse: ScoreStats;
  readonly withoutReuse: ScoreStats;
  readonly maxAbsDiff: number;
  readonly predictionMismatches: number;
  readonly questions: number;
}

export async function runPrefixReuseBenchmark(
  benchModel: BenchModel,
  mmluDir: string,
  subjects: number,
  perSubject: number,
  threads?: number,
): Promise<PrefixReuseResult> {
  const suite = await loadSuite('mmlu', { dataDir: mmluDir, limit: perSubject, numFewshot: 5 });
  const inputs = await suiteInputs(benchModel, { ...suite, tasks: suite.tasks.slice(0, subjects) });
  const model = await loadModel({ model: benchModel.modelPath, threads });
  try {
    await scoreModelInputs(model, inputs.slice(0, 4)); // warm-up: arena and thread pool
    let started = performance.now();
    const reused = await scoreModelInputs(model, inputs, { prefixReuse: true });
    const withReuseSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const plain = await scoreModelInputs(model, inputs, { prefixReuse: false });
    const withoutReuseSeconds = (performance.now() - started) / 1000;
    let maxAbsDiff = 0;
    reused.results.forEach((result, index) => {
      maxAbsDiff = Math.max(maxAbsDiff, Math.abs(result.loglik - (plain.results[index]?.loglik ?? Number.NaN)));
    });
    // Four choices per question, in order: compare the argmax choice of each question.
    let predictionMismatches = 0;
    const argmax = (values: number[]): number => values.indexOf(Math.max(...values));
    for (let question = 0; question * 4 < inputs.length; question += 1) {
      const pick = (results: typeof plain.results): number => argmax(results.slice(question * 4, question * 4 + 4).map((result) => result.loglik));
      if (pick(reused.results) !== pick(plain.results)) predictionMismatches += 1;
    }
    return {
      workload: `MMLU 5-shot (${subjects} subjects × ${perSubject})`,
      requests: inputs.length,
      withReuseSeconds,
      withoutReuseSeconds,
      withReuse: reused.stats,
      withoutReuse: plain.stats,
      maxAbsDiff,
      predictionMismatches,
      questions: inputs.length / 4,
    };
  } finally {
    model.dispose();
  }
}
