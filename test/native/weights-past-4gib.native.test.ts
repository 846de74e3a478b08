/**
 * Models whose weights pass 2 GiB keep them in an external-data file (protobuf caps a model file at 2 GiB), so
 * their tensors lie at offsets past 2^31, and past 2^32 once the weights pass 4 GiB (a 1B-parameter fp32
 * export). Every reader of those offsets must carry them in 64 bits: the load-time rewrite that hands ORT the
 * weights in place (native/graph/external_weights.h), ORT itself, and the inspect reader and zero scan.
 * A tiny model stands in for a big one: its weights file starts with a hole of 2.5 or 4.5 GiB (sparse: it
 * costs no disk), so its tensors sit where a multi-GB model's would. An offset cut to 32 bits would read the
 * hole (zeros) or fail; the logliks must be those of the same weights inline, scored by the independent
 * reference path, and the zero scan must see the weights, not the hole.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { readModelGraph } from '../../src/inspect/graph/model-graph.js';
import { scanTensorZeros } from '../../src/inspect/graph/zero-scan.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { expectReferenceLogliks } from '../support/expect-reference.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { randomModelInputs } from '../support/random-requests.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-past-4gib-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

// Weight matrices of 16 kB and more: above the 4 kB under which the rewrite leaves a weight inline.
const SIZES = { vocabSize: 96, hiddenSize: 64, numHeads: 2, mlpSize: 128, numLayers: 2, seed: 7 } as const;
const GiB = 2 ** 30;

/** Per weight tensor, how many of its elements are zero, as the native scan reads them from the file. */
async function zeroCounts(modelPath: string): Promise<Map<string, number>> {
  const graph = await readModelGraph(modelPath);
  const scanned = await scanTensorZeros(graph.tensors.filter((tensor) => tensor.length >= 4096));
  expect(scanned.unscanned).toEqual([]);
  return new Map([...scanned.results].map(([name, zeros]) => [name, zeros.zeros]));
}

describe("weights at file offsets past 2^31 and 2^32 (the place of a >2 GiB or >4 GiB model's tensors)", () => {
  it.each([
    ['2.5 GiB (past int32)', 2.5 * GiB],
    ['4.5 GiB (past uint32)', 4.5 * GiB],
  ])('weights from %s on: logliks of the same weights inline, on the rewritten and the plain load; the zero scan reads the weights', async (_, firstOffset) => {
    const inline = writeTinyCausalLm(mkdtempSync(path.join(workDir, 'inline-')), SIZES);
    const far = writeTinyCausalLm(mkdtempSync(path.join(workDir, 'far-')), { ...SIZES, externalData: true, externalDataOffset: firstOffset });
    const weightsFile = statSync(path.join(path.dirname(far.modelPath), 'model.onnx_data'));
    expect(weightsFile.size).toBeGreaterThan(firstOffset);
    expect(weightsFile.blocks * 512).toBeLessThan(64 * 2 ** 20); // sparse: the hole takes no disk

    const graph = await readModelGraph(far.modelPath);
    const external = graph.tensors.filter((tensor) => tensor.location === 'external');
    expect(external.length).toBeGreaterThan(0);
    expect(Math.min(...external.map((tensor) => tensor.offset))).toBe(firstOffset);

    const inputs = randomModelInputs(16, SIZES.vocabSize, 24, 5, 4);
    for (const rewrites of [{}, { cpuFusion: false, sliceLmHead: false }]) {
      const model = await loadModel({ model: far.modelPath, threads: 1, rewrites });
      try {
        await expectReferenceLogliks(inline.modelPath, inputs, (await scoreModelInputs(model, inputs)).results);
      } finally {
        model.dispose();
      }
    }
    expect(await zeroCounts(far.modelPath)).toEqual(await zeroCounts(inline.modelPath));
  });
});
