/**
 * The no-quantization allow-list against weights stored in another form (scripts/edge/build_disguise_fixtures.py):
 * for each class the issue names (an index into a table, a OneHot palette, comparison chains, bool bit-planes,
 * string tensors, low-bit types, quantized and integer ops, decoders in subgraphs and functions) two or more
 * fixtures in which layer 0's seven projections are decoded in the graph, each checked by onnxruntime to compute
 * what the script decoded; and honest models that must pass (low rank, tied embeddings, fp16, a shared layer, an id
 * map for a pruned vocabulary, rotary inverse frequencies as a small constant). Every expectation is the manifest's:
 * the verdict, and per disguised matrix the stored tensors, the class, and the reader the script found by walking
 * the graph. The checks before the allow-list passed every one of the comparison, bit-plane, string, Loop and
 * function fixtures (integer storage share 0.000 for comparisons, bool and strings not counted at all).
 */
import { describe, expect, it } from 'vitest';
import { readModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { checkQuantization, type QuantizationCheck } from '../../../src/inspect/quantization/quantization-check.js';
import { disguiseFixturePaths, disguiseManifest, type DisguiseFixture } from '../support/disguise-fixtures.js';

const fixturePath = disguiseFixturePaths('disguises');
const disguised = disguiseManifest.fixtures.filter((fixture) => fixture.verdict === 'fail');
const honest = disguiseManifest.fixtures.filter((fixture) => fixture.verdict === 'pass');

async function check(fixture: DisguiseFixture): Promise<QuantizationCheck> {
  return checkQuantization(await readModelGraph(fixturePath(fixture.file)));
}

describe('no quantization: weights stored in another form fail, named by tensor, path and reason', () => {
  it('the manifest holds at least two disguises of every class, and the honest models', () => {
    const perClass = new Map<string, number>();
    for (const fixture of disguised) perClass.set(fixture.class, (perClass.get(fixture.class) ?? 0) + 1);
    expect([...perClass.keys()].sort()).toEqual([
      'OneHot palette',
      'bool bit-planes',
      'comparison chain',
      'decoder subgraph',
      'low-bit types',
      'quantized and integer ops',
      'string tensors',
      'table lookup',
    ]);
    for (const [klass, count] of perClass) expect(count, klass).toBeGreaterThanOrEqual(2);
    expect(honest.map((fixture) => fixture.file)).toEqual(
      expect.arrayContaining(['honest-low-rank.onnx.gz', 'honest-tied-embeddings.onnx.gz', 'honest-fp16.onnx.gz', 'honest-clean.onnx.gz']),
    );
  });

  for (const fixture of disguised)
    it(`EXPECTED FAILURE – ${fixture.file.replace('.onnx.gz', '')}: ${fixture.description}`, async () => {
      const result = await check(fixture);
      expect(result.verdict.status).toBe('fail');
      // One finding per disguised matrix, at the reader the script found, naming a tensor the script wrote for it.
      expect(result.disallowedWeights).toHaveLength(fixture.weights.length);
      for (const weight of fixture.weights) {
        const finding = result.disallowedWeights.find((candidate) => candidate.reader.node === weight.reader.node);
        expect(finding, `${weight.matmul}: no finding read by ${weight.reader.node}`).toBeDefined();
        expect(finding!.reader.opType).toBe(weight.reader.opType);
        expect(weight.tensors).toContain(finding!.tensor);
        expect(finding!.violation, weight.matmul).toBe(weight.violation);
        expect(finding!.route.startsWith(`${finding!.tensor} → `) && finding!.route.endsWith(`${weight.reader.opType} ${weight.reader.node}`)).toBe(true);
        expect(result.verdict.reasons.join('\n')).toContain(
          `${finding!.tensor} (${finding!.dtype}) → … → ${weight.reader.opType} ${weight.reader.node}: ${finding!.reason}`,
        );
      }
    });

  for (const fixture of honest)
    it(`passes ${fixture.file.replace('.onnx.gz', '')}: ${fixture.description}`, async () => {
      const result = await check(fixture);
      expect(result.verdict.reasons).toEqual([]);
      expect(result.verdict.status).toBe('pass');
      expect(result.disallowedWeights).toEqual([]);
    });
});
