/**
 * The default load path (rewrites on) must give the numbers of `--no-cpu-fusion` within 1e-4 per request, and
 * those of the graph with every rewrite off (the LM head unsliced too) within 1e-4 on fp32 graphs. On fp16
 * graphs the sliced head is a GEMM over fewer rows, which MLAS may block and so round differently at 11 bits:
 * there the bound is 1e-4 plus 1e-5 of the loglik (seen: 1.3e-4 on −16.25, 5.1e-5 on −4.1). The quantized ones are covered in test/native/hostile-load.native.test.ts. bf16 graphs are not here: ONNX Runtime's
 * CPU provider cannot run them (no bf16 Where), so neither path scores them on the CPU.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { randomModelInputs } from '../support/random-requests.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'edge');
const TOLERANCE = 1e-4;

// [fixture, vocabulary, positions used, half precision]
const graphs: [string, number, number, boolean][] = [
  ['quant/llama-fp32.onnx', 64, 48, false],
  ['quant/llama-fp16.onnx', 64, 48, true],
  ['phi-fp16-mask/model.onnx', 512, 48, true],
];

describe('default rewrites against the graph as submitted', () => {
  it.each(graphs)('%s: default = --no-cpu-fusion within 1e-4, and the unrewritten graph', async (file, vocab, positions, half) => {
    const modelPath = path.join(fixtures, file);
    const variants = [
      await loadModel({ model: modelPath, threads: 1 }),
      await loadModel({ model: modelPath, threads: 1, cpuFusion: false }),
      await loadModel({ model: modelPath, threads: 1, cpuFusion: false, sliceLmHead: false }),
    ];
    try {
      const inputs = randomModelInputs(16, vocab, positions, 29, 4);
      const [fused, unfused, plain] = await Promise.all(variants.map(async (model) => (await scoreModelInputs(model, inputs)).results));
      plain!.forEach((expected, request) => {
        expect(Number.isFinite(expected.loglik), `request ${request} scores`).toBe(true);
        expect(Math.abs(fused![request]!.loglik - unfused![request]!.loglik), `request ${request}, default vs --no-cpu-fusion`).toBeLessThanOrEqual(TOLERANCE);
        const bound = half ? TOLERANCE + 1e-5 * Math.abs(expected.loglik) : TOLERANCE;
        expect(Math.abs(fused![request]!.loglik - expected.loglik), `request ${request}, default vs unrewritten`).toBeLessThanOrEqual(bound);
      });
    } finally {
      for (const model of variants) model.dispose();
    }
  });
});
