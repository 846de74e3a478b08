/**
 * Lineage through transforms that keep a model derived from its base: SliceGPT (each layer's hidden basis rotated
 * and sliced), a layer that reuses another's weights (the same tensors, or a copy), and a head tied to the token
 * embedding; and an unrelated model put through the same rotation, which must still be refused. The truth is what
 * scripts/edge/build_lineage_transform_fixtures.py did (its manifest: which base layer each layer came from; no unit
 * was removed or reordered), never the check's own output. The base is the lineage base (build_lineage_fixtures.py).
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkLineage } from '../../../src/inspect/lineage/lineage-check.js';
import type { LineageReport } from '../../../src/inspect/lineage/report.js';
import { checkTrack } from '../../../src/inspect/track/track-check.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'edge');
interface TransformFacts {
  readonly file: string;
  readonly derived: boolean;
  readonly baseLayers?: readonly number[];
  readonly hidden?: number;
}
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'lineage-transforms', 'manifest.json'), 'utf8')) as {
  fixtures: Readonly<Record<string, TransformFacts>>;
};
const lineageManifest = JSON.parse(readFileSync(join(FIXTURES, 'lineage', 'manifest.json'), 'utf8')) as {
  sizes: { hidden: number; heads: number; headDim: number; ffn: number; layers: number };
  fixtures: { base: { onnx: string; externalData: string; safetensors: string } };
};
const { sizes } = lineageManifest;
const tempPath = useTempDirectory('lineage-transforms');

const unpack = (folder: string, name: string): string => {
  const out = tempPath(name.replace(/\.gz$/, ''));
  if (!existsSync(out)) writeFileSync(out, gunzipSync(readFileSync(join(FIXTURES, folder, name))));
  return out;
};
copyFileSync(join(FIXTURES, 'lineage', lineageManifest.fixtures.base.externalData), tempPath(lineageManifest.fixtures.base.externalData));
const base = unpack('lineage', lineageManifest.fixtures.base.onnx);
const model = (name: string): string => unpack('lineage-transforms', manifest.fixtures[name]!.file);
const identity = (count: number): number[] => Array.from({ length: count }, (_, index) => index);

/** Every unit of every layer kept in place (nothing removed or reordered), from the base layer the manifest names. */
function expectEveryUnitInPlace(report: LineageReport, baseLayers: readonly number[]): void {
  expect(report.status).toBe('derived');
  expect(report.layers.map((layer) => layer.baseLayer)).toEqual(baseLayers);
  for (const layer of report.layers) {
    expect(layer.heads?.kept).toEqual(identity(sizes.heads));
    expect(layer.kvHeads?.kept).toEqual(identity(sizes.heads));
    expect(layer.ffnChannels?.kept).toEqual(identity(sizes.ffn));
  }
  expect(report.units.matched).toBe(report.units.total);
}

describe('SliceGPT: every layer in its own rotated, sliced basis', () => {
  const facts = manifest.fixtures.slicegpt!;

  it('derives from its base by signatures no rotation changes, every head and FFN channel traced to itself', async () => {
    expect(facts.hidden).toBeLessThan(sizes.hidden); // sliced 64 -> 48
    const report = await checkLineage(model('slicegpt'), base, { headDim: sizes.headDim });
    expect(report.comparedBy).toBe('rotation-invariant');
    expectEveryUnitInPlace(report, facts.baseLayers!);
    expect(report.hiddenChannels).toBeNull(); // a rotated channel is no base channel
    expect(report.removedLayers).toEqual([]);
    // Slicing 25 % of isotropic weights keeps about sqrt(48/64) = 0.87 of each signature; unrelated units sit near 0.
    for (const layer of report.layers) expect(layer.similarity).toBeGreaterThan(0.75);
    expect(report.verdict.status).toBe('pass');
  });

  it("derives from the base's safetensors checkpoint (bf16) just the same", async () => {
    const checkpoint = join(FIXTURES, 'lineage', lineageManifest.fixtures.base.safetensors);
    const report = await checkLineage(model('slicegpt'), checkpoint, { headDim: sizes.headDim });
    expect(report.status).toBe('derived');
    expect(report.comparedBy).toBe('rotation-invariant');
  });

  it("passes the compression track's lineage gate against its base", async () => {
    const report = await checkTrack('edge-compression', model('slicegpt'), { base, measureDram: false });
    expect(report.checks.lineage).toMatchObject({ status: 'derived', notJudged: null });
    expect(report.verdict.reasons.filter((finding) => finding.check === 'lineage')).toEqual([]);
  });

  it("EXPECTED FAILURE – a model of another base (a Llama) with the base's config.json copied beside it does not derive from it", async () => {
    const substitute = unpack('pruning', 'llama-torchscript-opset14-base.onnx.gz');
    copyFileSync(join(FIXTURES, 'lineage', 'base-config.json'), join(substitute, '..', 'config.json'));
    const report = await checkLineage(substitute, base, { headDim: sizes.headDim });
    expect(report.status).not.toBe('derived');
    expect(report.units.matched).toBe(0);
  });

  it('EXPECTED FAILURE – an unrelated model put through the same rotation and slicing does not derive from the base', async () => {
    const report = await checkLineage(model('rotated-unrelated'), base, { headDim: sizes.headDim });
    expect(report.status).toBe('not-derived');
    expect(report.verdict.reasons[0]).toMatch(/does not derive from .*: \d+ of \d+ units/);
    expect(report.units.matched).toBeLessThan(report.units.total / 10);
  });
});

describe('cross-layer sharing and tied embeddings', () => {
  it('a layer that is a copy of another derives from the base layer both came from', async () => {
    const facts = manifest.fixtures['shared-layer-copy']!;
    const report = await checkLineage(model('shared-layer-copy'), base, { headDim: sizes.headDim });
    expect(report.comparedBy).toBe('channels');
    expectEveryUnitInPlace(report, facts.baseLayers!);
    expect(report.removedLayers).toEqual([1]); // base layer 1's weights are nowhere in the model
    expect(report.verdict).toEqual({ status: 'pass', reasons: [], warnings: [] });
  });

  it("a layer that reads another's tensors is traced through the shared tensors (listed once)", async () => {
    const facts = manifest.fixtures['shared-layer']!;
    const report = await checkLineage(model('shared-layer'), base, { headDim: sizes.headDim });
    expect(report.status).toBe('derived');
    // The graph stores the shared layer's tensors once, so the report lists the layers whose tensors it holds.
    expect(report.layers.map((layer) => layer.baseLayer)).toEqual([...new Set(facts.baseLayers)]);
    expect(report.units.matched).toBe(report.units.total);
  });

  it("a head tied to the token embedding changes nothing in the layers' lineage", async () => {
    const report = await checkLineage(model('tied-head'), base, { headDim: sizes.headDim });
    expectEveryUnitInPlace(report, manifest.fixtures['tied-head']!.baseLayers!);
    expect(report.verdict.status).toBe('pass');
  });
});
