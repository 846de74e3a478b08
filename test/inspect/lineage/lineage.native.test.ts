/**
 * Lineage: is a pruned model cut from its base? The expectations are what the Python scripts did, read from their
 * manifests or their source: scripts/edge/build_lineage_fixtures.py (which base layer, heads and FFN channels the
 * pruned-and-fine-tuned Phi kept; the unrelated model is another seed) and scripts/edge/build_pruning_fixtures.py
 * (its VARIANTS: what 'pruned-all' removed from Phi, grouped-query Llama and fused-qkv GPT-2).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runCheckPruningCommand } from '../../../src/cli/check-pruning-command.js';
import { MlrbError } from '../../../src/errors.js';
import { formatPruningReport } from '../../../src/inspect/pruning/format.js';
import { readTensorValues } from '../../../src/inspect/graph/tensor-values.js';
import { checkLineage } from '../../../src/inspect/index.js';
import { assignUnits } from '../../../src/inspect/lineage/assign.js';
import type { LineageReport } from '../../../src/inspect/lineage/report.js';
import type { UnitVectors } from '../../../src/inspect/lineage/units.js';
import { checkPruning, type PruningReport } from '../../../src/inspect/pruning/pruning-check.js';
import { openSafetensorsCheckpoint } from '../../../src/inspect/lineage/safetensors-checkpoint.js';
import { checkTrack } from '../../../src/inspect/track/track-check.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const LINEAGE = join(__dirname, '..', '..', 'fixtures', 'edge', 'lineage');
interface PrunedFacts {
  readonly file: string;
  readonly removedLayers: readonly number[];
  /** Base hidden channels kept (all of them unless the width was pruned). */
  readonly hiddenChannels: readonly number[];
  readonly layers: readonly { readonly baseLayer: number; readonly heads: readonly number[]; readonly ffnChannels: readonly number[] }[];
}
interface LineageManifest {
  readonly sizes: { readonly hidden: number; readonly heads: number; readonly ffn: number };
  readonly fixtures: {
    readonly base: { readonly onnx: string; readonly externalData: string; readonly safetensors: string; readonly config: string };
    readonly 'pruned-finetuned': PrunedFacts;
    readonly 'pruned-hidden': PrunedFacts;
    readonly unrelated: { readonly file: string };
  };
}
const manifest = JSON.parse(readFileSync(join(LINEAGE, 'manifest.json'), 'utf8')) as LineageManifest;
const { base, 'pruned-finetuned': pruned, 'pruned-hidden': widthPruned, unrelated } = manifest.fixtures;
const tempPath = useTempDirectory('lineage');
// The ONNX fixtures are gzipped: unpacked into one folder with the base's external data beside it.
copyFileSync(join(LINEAGE, base.externalData), tempPath(base.externalData));
const at = (name: string): string => {
  if (!name.endsWith('.gz')) return join(LINEAGE, name);
  const out = tempPath(name.slice(0, -'.gz'.length));
  if (!existsSync(out)) writeFileSync(out, gunzipSync(readFileSync(join(LINEAGE, name))));
  return out;
};

/** The pruned model's units, traced to the base, equal the script's truth; every similarity is that of a fine-tuned copy. */
function expectTruth(report: LineageReport, truth: PrunedFacts = pruned): void {
  expect(report.status).toBe('derived');
  expect(report.verdict).toEqual({ status: 'pass', reasons: [], warnings: [] });
  expect(report.removedLayers).toEqual(truth.removedLayers);
  expect(report.layers.map((layer) => layer.baseLayer)).toEqual(truth.layers.map((layer) => layer.baseLayer));
  truth.layers.forEach((facts, position) => {
    const layer = report.layers[position]!;
    expect(layer.heads?.kept).toEqual(facts.heads);
    expect(layer.kvHeads?.kept).toEqual(facts.heads); // Phi: one key/value head per query head
    expect(layer.ffnChannels?.kept).toEqual(facts.ffnChannels);
    expect(layer.heads?.baseCount).toBe(manifest.sizes.heads);
    expect(layer.ffnChannels?.baseCount).toBe(manifest.sizes.ffn);
    for (const value of layer.heads!.similarity!) expect(value).toBeGreaterThan(0.9);
    expect(layer.ffnChannels!.minSimilarity).toBeGreaterThan(0.9);
    expect(layer.similarity).toBeGreaterThan(0.9);
  });
  const widthPruned = truth.hiddenChannels.length < manifest.sizes.hidden;
  expect(report.hiddenChannels?.kept ?? null).toEqual(widthPruned ? truth.hiddenChannels : null);
  const units = truth.layers.reduce((sum, layer) => sum + 2 * layer.heads.length + layer.ffnChannels.length, widthPruned ? truth.hiddenChannels.length : 0);
  expect(report.units).toEqual({ total: units, matched: units });
}

describe('checkLineage on a pruned, fine-tuned Phi (scripts/edge/build_lineage_fixtures.py)', () => {
  it('traces every kept layer, head and FFN channel to the ONNX base (fp16, external data)', async () => {
    expectTruth(await checkLineage(at(pruned.file), at(base.onnx)));
  });

  it('traces the same units to the sharded bf16 safetensors checkpoint of the base', async () => {
    const report = await checkLineage(at(pruned.file), at(base.safetensors));
    expect(report.baseKind).toBe('safetensors');
    expectTruth(report);
  });

  it.each([
    ['ONNX', base.onnx],
    ['safetensors', base.safetensors],
  ])("traces a width-pruned copy (every fourth hidden channel and one layer's attention removed) to the %s base", async (_, basePath) => {
    const report = await checkLineage(at(widthPruned.file), at(basePath));
    expectTruth(report, widthPruned);
    expect(report.hiddenChannels!.minSimilarity).toBeGreaterThan(0.9);
  });

  it.each([
    ['ONNX', base.onnx],
    ['safetensors', base.safetensors],
  ])('EXPECTED FAILURE – a model of the same shape from another seed does not derive from the %s base', async (_, basePath) => {
    const report = await checkLineage(at(unrelated.file), at(basePath));
    expect(report.status).toBe('not-derived');
    expect(report.verdict.status).toBe('fail');
    expect(report.verdict.reasons[0]).toContain('does not derive from');
    expect(report.units.matched).toBeLessThan(report.units.total / 2);
    for (const layer of report.layers) expect(layer.similarity).toBeLessThan(0.3);
  });

  it('says "not checked" for a config.json base: it has no weights', async () => {
    const report = await checkLineage(at(pruned.file), at(base.config));
    expect(report.status).toBe('not-checked');
    expect(report.note).toContain('config.json has no weights');
    expect(report.verdict).toEqual({ status: 'pass', reasons: [], warnings: [] });
  });

  it('BAD CALL – options are validated before any file is read', async () => {
    await expect(checkLineage(at(pruned.file), at(base.onnx), { headDim: -4 })).rejects.toThrow(RangeError);
    await expect(checkLineage(at(pruned.file), at(base.onnx), { headDm: 16 } as never)).rejects.toThrow(RangeError);
    await expect(checkLineage('', at(base.onnx))).rejects.toThrow(TypeError);
  });
});

describe('check-pruning folds lineage in', () => {
  it('a safetensors base: lineage names the removed middle layer and the verdict passes', async () => {
    const report = await checkPruning(at(pruned.file), { base: at(base.safetensors), forwardPass: false });
    expectTruth(report.lineage);
    expect(report.base.kind).toBe('config'); // widths and counts from the checkpoint's config.json
    expect(report.removedLayers).toEqual(pruned.removedLayers);
    expect(report.layerMapping).toBe('by-weights');
    expect(report.verdict.status).toBe('pass');
    const text = formatPruningReport(report);
    expect(text).toContain(`Lineage (weights vs safetensors base): derived`);
    expect(text).toContain(`layer 0 <- base 0`);
  });

  it('a width-pruned model against the ONNX base: lineage aligns the layers, so the removed middle layer is named', async () => {
    const report = await checkPruning(at(widthPruned.file), { base: at(base.onnx), forwardPass: false });
    expectTruth(report.lineage, widthPruned);
    expect(report.removedLayers).toEqual(widthPruned.removedLayers);
    expect(report.layers.find((layer) => layer.status === 'kept')?.hidden).toEqual({ base: manifest.sizes.hidden, kept: widthPruned.hiddenChannels.length });
    expect(report.verdict.status).toBe('pass');
  });

  it('EXPECTED FAILURE – the unrelated model passes every structural check but fails on lineage', async () => {
    const stdout = new PassThrough();
    let json = '';
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      json += chunk;
    });
    const code = await runCheckPruningCommand([at(unrelated.file), '--base', at(base.onnx), '--json', '--strict', '--skip-forward'], {
      stdout,
      stderr: new PassThrough(),
    });
    expect(code).toBe(1);
    const report = JSON.parse(json) as PruningReport;
    expect(report.consistencyIssues).toEqual([]);
    expect(report.fakePruning.detected).toBe(false);
    expect(report.lineage.status).toBe('not-derived');
    expect(report.verdict.reasons).toHaveLength(1);
    expect(report.verdict.reasons[0]).toMatch(/^lineage: .* does not derive from /);
  });

  it('a config.json base: lineage is not checked, and the text report says so', async () => {
    const report = await checkPruning(at(pruned.file), { base: at(base.config), forwardPass: false });
    expect(report.lineage.status).toBe('not-checked');
    expect(report.verdict.status).toBe('pass');
    expect(formatPruningReport(report)).toContain('Lineage: not checked (a config.json has no weights');
  });
});

describe('check-track edge-compression with a weights base', () => {
  it('EXPECTED FAILURE – the unrelated model fails the [lineage] gate; the pruned one passes it', async () => {
    const failing = await checkTrack('edge-compression', at(unrelated.file), { base: at(base.safetensors), measureDram: false });
    expect(failing.verdict.status).toBe('fail');
    expect(failing.verdict.reasons).toEqual([{ check: 'lineage', message: expect.stringMatching(/ does not derive from /) }]);
    expect(failing.checks.lineage).toMatchObject({ status: 'not-derived', baseKind: 'safetensors', notJudged: null });
    const passing = await checkTrack('edge-compression', at(pruned.file), { base: at(base.safetensors), measureDram: false });
    expect(passing.verdict.reasons).toEqual([]);
    expect(passing.checks.lineage?.status).toBe('derived');
    expect(passing.pruning?.lineage.status).toBe('derived');
  });
});

describe('lineage across exporters and architectures (scripts/edge/build_pruning_fixtures.py, pruned-all)', () => {
  // VARIANTS['pruned-all']: heads whole_groups([2]) removed from layer 0 (Llama's groups of 2 take head 3 and its
  // key/value head 1 too), FFN channels 0-7 removed from layer 2, layer 1 removed. FFN is 32 wide, 4 heads.
  const truth = {
    phi: { heads: [0, 1, 3], kvHeads: [0, 1, 3] },
    gpt2: { heads: [0, 1, 3], kvHeads: [0, 1, 3] },
    llama: { heads: [0, 1], kvHeads: [0] },
  } as const;
  const pruningDir = join(__dirname, '..', '..', 'fixtures', 'edge', 'pruning');
  const unzip = (file: string): string => {
    const out = tempPath(file.replace(/\.gz$/, ''));
    writeFileSync(out, gunzipSync(readFileSync(join(pruningDir, file))));
    return out;
  };
  it.each([
    ['phi', 'torchscript-opset17'],
    ['phi', 'dynamo'],
    ['llama', 'torchscript-opset14'],
    ['llama', 'ort-fused'],
    ['gpt2', 'torchscript-opset14'],
    ['gpt2', 'ort-fused'],
  ] as const)('%s %s: kept heads, key/value heads, channels and layers', async (arch, exporter) => {
    const report = await checkLineage(unzip(`${arch}-${exporter}-pruned-all.onnx.gz`), unzip(`${arch}-${exporter}-base.onnx.gz`), { headDim: 4 });
    expect(report.status).toBe('derived');
    expect(report.layers.map((layer) => layer.baseLayer)).toEqual([0, 2]);
    expect(report.removedLayers).toEqual([1]);
    expect(report.layers[0]!.heads?.kept).toEqual(truth[arch].heads);
    expect(report.layers[0]!.kvHeads?.kept).toEqual(truth[arch].kvHeads);
    expect(report.layers[1]!.ffnChannels?.kept).toEqual(Array.from({ length: 24 }, (_, index) => index + 8));
    expect(report.layers[0]!.ffnChannels?.kept).toEqual(Array.from({ length: 32 }, (_, index) => index));
  });
});

/** A safetensors file: 8-byte header length, the JSON header, then the data. */
function safetensorsBytes(header: Record<string, unknown>, data: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, data]);
}

describe('safetensors checkpoints are read from their headers, under the file policy', () => {
  it('reads F32, F16 and BF16 values of a single-file checkpoint at their offsets', () => {
    const folder = tempPath('single');
    mkdirSync(folder);
    const f32 = Buffer.from(new Float32Array([1.5, -2, 0.25, 3, 4, -5]).buffer);
    const f16 = Buffer.from(new Uint16Array([0x3c00, 0xc000]).buffer); // 1, -2
    const bf16 = Buffer.from(new Uint16Array([0x3fc0, 0xc040]).buffer); // 1.5, -3
    writeFileSync(
      join(folder, 'model.safetensors'),
      safetensorsBytes(
        {
          __metadata__: { format: 'pt' },
          a: { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] },
          b: { dtype: 'F16', shape: [2], data_offsets: [24, 28] },
          c: { dtype: 'BF16', shape: [2], data_offsets: [28, 32] },
        },
        Buffer.concat([f32, f16, bf16]),
      ),
    );
    const checkpoint = openSafetensorsCheckpoint(folder);
    const value = (name: string): number[] => Array.from(readTensorValues(checkpoint.graph.tensorByName.get(name)!));
    expect(value('a')).toEqual([1.5, -2, 0.25, 3, 4, -5]);
    expect(value('b')).toEqual([1, -2]);
    expect(value('c')).toEqual([1.5, -3]);
  });

  const hostile = (name: string, write: (folder: string) => void): string => {
    const folder = tempPath(name);
    mkdirSync(folder);
    write(folder);
    return folder;
  };
  it.each([
    [
      'a header longer than the file',
      (folder: string) => {
        const bytes = safetensorsBytes({ a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, Buffer.alloc(4));
        bytes.writeBigUInt64LE(10n ** 12n);
        writeFileSync(join(folder, 'model.safetensors'), bytes);
      },
      /header/,
    ],
    [
      'a byte range past the data',
      (folder: string) => {
        writeFileSync(join(folder, 'model.safetensors'), safetensorsBytes({ a: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, Buffer.alloc(8)));
      },
      /tensor a .* do not fit/,
    ],
    [
      'a shard named outside the folder',
      (folder: string) => {
        writeFileSync(join(folder, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { a: '../outside.safetensors' } }));
      },
      /safetensors file/,
    ],
    [
      'a shard that links outside the folder',
      (folder: string) => {
        const outside = tempPath(`outside-${folder.length}.safetensors`);
        writeFileSync(outside, safetensorsBytes({ a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, Buffer.alloc(4)));
        symlinkSync(outside, join(folder, 'model.safetensors'));
      },
      /resolves outside the checkpoint folder/,
    ],
    [
      'a FIFO named model.safetensors (must fail, not block)',
      (folder: string) => {
        execFileSync('mkfifo', [join(folder, 'model.safetensors')]);
      },
      /is not a regular file/,
    ],
    [
      'a header that is not JSON',
      (folder: string) => {
        const bytes = safetensorsBytes({}, Buffer.alloc(0));
        writeFileSync(join(folder, 'model.safetensors'), Buffer.concat([bytes.subarray(0, 8), Buffer.from('{x')]));
      },
      /header is not UTF-8 JSON/,
    ],
  ])('BAD_MODEL – %s', (name, write, message) => {
    const folder = hostile(name.replace(/\W+/g, '-'), write);
    let failure: unknown;
    try {
      openSafetensorsCheckpoint(folder);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(MlrbError);
    expect((failure as MlrbError).code).toBe('BAD_MODEL');
    expect((failure as MlrbError).message).toMatch(message);
  });
});

describe('unit assignment in any order (seeded random units, the permutation made here is the truth)', () => {
  /** mulberry32: a seeded generator, independent of the code under test. */
  const generator = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let mixed = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const random = generator(2026);
  const gauss = (): number => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const [baseCount, keptCount, length] = [2048, 1536, 128];
  const unitLength = (vectors: Float32Array, count: number): UnitVectors => {
    for (let unit = 0; unit < count; unit++) {
      const row = vectors.subarray(unit * length, (unit + 1) * length);
      const norm = Math.hypot(...row);
      row.forEach((value, index) => {
        row[index] = value / norm;
      });
    }
    return { count, length, vectors };
  };
  const baseUnits = unitLength(Float32Array.from({ length: baseCount * length }, gauss), baseCount);
  /** Kept base units in the given order, each moved by noise of `noise` x its entries' spread (cosine ~ 1/sqrt(1 + noise²)). */
  const copyOf = (kept: readonly number[], noise: number): UnitVectors => {
    const vectors = new Float32Array(kept.length * length);
    kept.forEach((origin, unit) => {
      for (let index = 0; index < length; index++)
        vectors[unit * length + index] = baseUnits.vectors[origin * length + index]! + (noise * gauss()) / Math.sqrt(length);
    });
    return unitLength(vectors, kept.length);
  };
  const shuffled = Array.from({ length: baseCount }, (_, index) => index)
    .sort(() => random() - 0.5)
    .slice(0, keptCount);

  it.each([
    ['in order (sorted indices)', [...shuffled].sort((a, b) => a - b)],
    ['permuted (an unsorted top-k)', shuffled],
  ])('finds every origin of units kept %s, after fine-tuning noise (cosine ~0.96)', (_, kept) => {
    const assignment = assignUnits(copyOf(kept, 0.3), baseUnits);
    expect(Array.from(assignment.origin)).toEqual(kept);
    expect(Math.min(...assignment.similarity)).toBeGreaterThan(0.9);
  });

  it('EXPECTED FAILURE – unrelated units match nothing, and the search stops after the probe', () => {
    const assignment = assignUnits(unitLength(Float32Array.from({ length: keptCount * length }, gauss), keptCount), baseUnits);
    expect(assignment.origin.filter((origin) => origin >= 0)).toHaveLength(0);
    expect(assignment.similarity.filter((value) => Number.isNaN(value)).length).toBeGreaterThan(keptCount - 100);
  });
});
