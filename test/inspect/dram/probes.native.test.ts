/**
 * The DRAM probes against graphs that game a synthetic probe, and an honest model a name-based reading rejected.
 * The fixtures and the figures they are held to come from scripts/edge/build_dram_fixtures.py: each model was run by
 * plain onnxruntime in Python on 2,000 tokens of the package's real text (and on random ids), and the peak RSS
 * delta of that process is in the manifest. The measurement here must find at least most of what plain ORT found on
 * real text, however cheap the graph makes random ids, one length, or ids it does not expect.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkDramBudget, resolveBudget } from '../../../src/inspect/dram/dram-check.js';
import { estimateDram } from '../../../src/inspect/dram/estimate.js';
import { measureDram, type DramMeasurement } from '../../../src/inspect/dram/measure.js';
import { inspectModel } from '../../../src/inspect/report/inspect-report.js';
import { checkTrack } from '../../../src/inspect/track/track-check.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'edge', 'dram');
interface PlainOrt {
  readonly text2000: number;
  readonly random2000: number;
  readonly text1500?: number;
}
interface DramManifest {
  readonly kitTokens: number;
  readonly fixtures: Readonly<
    Record<
      string,
      {
        readonly plainOrtPeakDeltaBytes: PlainOrt;
        readonly tokenEmbedding?: string;
        readonly positionTable?: string;
        readonly positionRows?: number;
        readonly vocab?: number;
        readonly rotaryCaches?: readonly string[];
        readonly rotaryRows?: number;
        readonly rotaryDim?: number;
        readonly maxLogitDifferenceVsTransformers1000?: number;
      }
    >
  >;
}
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as DramManifest;
const tempPath = useTempDirectory('dram-probes');

/** The fixture's folder unpacked (into a folder named `as`): model.onnx, tokenizer.json and config.json when it has one. */
function unpack(name: string, as = name): string {
  const folder = tempPath(as);
  mkdirSync(folder);
  writeFileSync(join(folder, 'model.onnx'), gunzipSync(readFileSync(join(FIXTURES, name, 'model.onnx.gz'))));
  copyFileSync(join(FIXTURES, name, 'tokenizer.json'), join(folder, 'tokenizer.json'));
  if (existsSync(join(FIXTURES, name, 'config.json'))) copyFileSync(join(FIXTURES, name, 'config.json'), join(folder, 'config.json'));
  return join(folder, 'model.onnx');
}

const probe = (measurement: DramMeasurement, kind: string) => measurement.probes.find((each) => each.kind === kind)!;

describe('graphs that would game a synthetic probe are measured on real text', () => {
  for (const name of ['recognises-random', 'sized-by-ids'] as const) {
    it(`EXPECTED FAILURE – ${name}: cheap on random ids, measured at what plain onnxruntime needs on real text`, async () => {
      const plain = manifest.fixtures[name]!.plainOrtPeakDeltaBytes;
      expect(plain.random2000).toBeLessThan(plain.text2000 / 4); // the fixture does game random ids
      const model = unpack(name);
      const measurement = await measureDram(model, { threads: 1 });
      expect(measurement.peakDeltaBytes).toBeGreaterThanOrEqual(0.8 * plain.text2000);
      expect(probe(measurement, 'random-ids').peakDeltaBytes).toBeLessThan(plain.text2000 / 2); // what random ids alone would have measured
      // Whichever of the probes it does not recognise peaked highest decides (text or repeated ids: near enough to tie).
      expect(measurement.decidingProbe).not.toBe('random-ids');
      // A budget between the two figures: passed when random ids were the probe, failed now.
      const check = checkDramBudget(estimateDram(await inspectModel(model)), measurement, resolveBudget(undefined, Math.round(plain.text2000 / 2)));
      expect(check.verdict.status).toBe('fail');
      expect(check.verdict.reasons[0]).toMatch(/^measured peak DRAM .* exceeds the DRAM budget/);
    });
  }

  it("EXPECTED FAILURE – cheap-at-2000: cheap at exactly the kit's length, measured at the second length", async () => {
    const plain = manifest.fixtures['cheap-at-2000']!.plainOrtPeakDeltaBytes;
    expect(plain.text2000).toBeLessThan(plain.text1500! / 4);
    const measurement = await measureDram(unpack('cheap-at-2000'), { threads: 1 });
    expect(measurement.decidingProbe).toBe('text-other-length');
    expect(probe(measurement, 'text-other-length').tokens).toBeLessThan(manifest.kitTokens);
    expect(measurement.peakDeltaBytes).toBeGreaterThanOrEqual(0.8 * plain.text1500!);
    expect(probe(measurement, 'text').peakDeltaBytes).toBeLessThan(plain.text1500! / 2);
  });
});

describe('a byte-level GPT-2 (vocab 256) with 2,048 learned positions', () => {
  const facts = manifest.fixtures['gpt2-bytes-2048']!;
  const model = unpack('gpt2-bytes-2048');

  it('takes the table read at the token ids for the token embedding, and the one read at positions for the position table', async () => {
    const report = await inspectModel(model);
    expect(report.graph.positionLimit).toEqual({ tensor: facts.positionTable, rows: facts.positionRows, kind: 'learned' });
    expect(report.graph.rotaryCaches).toEqual([]);
    expect(report.architecture.vocab).toBe(facts.vocab);
    expect(report.tensors.find((tensor) => tensor.name === facts.tokenEmbedding)?.role).toBe('embed');
  });

  it("is measured on 2,000 tokens of text, as plain onnxruntime measures it, and passes the training track's DRAM limit", async () => {
    const report = await checkTrack('edge-training', model, { threads: 1 });
    const measurement = report.checks.dram.measurement!;
    expect(report.checks.dram.measurementError).toBeNull();
    expect(probe(measurement, 'text').tokens).toBe(manifest.kitTokens);
    const plain = facts.plainOrtPeakDeltaBytes.text2000;
    expect(Math.abs(probe(measurement, 'text').peakDeltaBytes - plain) / plain).toBeLessThan(0.25);
    expect(report.checks.dram.verdict.status).toBe('pass');
  });
});

describe('a Phi whose export stored rotary caches of 512 rows', () => {
  const facts = manifest.fixtures['phi-rotary-cache-512']!;
  const model = unpack('phi-rotary-cache-512');

  it('reads the caches as rotary (their rows are multiplied into q and k), not as a limit on the input', async () => {
    const report = await inspectModel(model);
    expect(report.graph.positionLimit).toBeNull();
    expect(report.graph.rotaryCaches.map((cache) => cache.tensor).sort()).toEqual(facts.rotaryCaches);
    expect(report.graph.rotaryCaches.every((cache) => cache.rows === facts.rotaryRows && cache.kind === 'rotary')).toBe(true);
  });

  it('rebuilds them from config.json for the measured copy, says so, and measures what plain onnxruntime measures on that copy', async () => {
    // The rebuilt copy computes the model the kit runs: transformers' own logits, 1,000 tokens in (the script checked).
    expect(facts.maxLogitDifferenceVsTransformers1000).toBeLessThan(1e-4);
    const measurement = await measureDram(model, { threads: 1 });
    expect(measurement.rebuiltRotaryCaches.map((cache) => [cache.tensor, cache.storedRows, cache.rows, cache.layout, cache.function])).toEqual(
      facts.rotaryCaches!.map((name) => [name, facts.rotaryRows, manifest.kitTokens, 'halves', name.endsWith('cos_cached') ? 'cos' : 'sin']),
    );
    expect(measurement.rebuiltRotaryCaches[0]!.settings).toMatchObject({ theta: 10_000, rotaryDim: facts.rotaryDim, positionScale: 1 });
    expect(measurement.rebuiltRotaryCaches.every((cache) => cache.maxStoredError < 1e-5)).toBe(true); // fp32 caches: transformers' own values
    expect(probe(measurement, 'text').tokens).toBe(manifest.kitTokens);
    const plain = facts.plainOrtPeakDeltaBytes.text2000;
    expect(Math.abs(probe(measurement, 'text').peakDeltaBytes - plain) / plain).toBeLessThan(0.25);
  });

  it('EXPECTED FAILURE – a config.json whose rotary settings do not produce the stored rows cannot rebuild them: BAD_MODEL saying why', async () => {
    const config = JSON.parse(readFileSync(join(FIXTURES, 'phi-rotary-cache-512', 'config.json'), 'utf8')) as Record<string, unknown>;
    const lying = { ...config, rope_theta: 500_000, rope_parameters: { rope_theta: 500_000, rope_type: 'default', partial_rotary_factor: 0.5 } };
    const copy = unpack('phi-rotary-cache-512', 'phi-lying-config');
    writeFileSync(join(copy, '..', 'config.json'), JSON.stringify(lying));
    await expect(measureDram(copy, { tokens: 600 })).rejects.toMatchObject({
      code: 'BAD_MODEL',
      message: expect.stringMatching(
        /rotary cache model\.model\.rotary_emb\.(cos|sin)_cached has 512 rows, fewer than the 600 tokens measured; rotary cache .* cannot be rebuilt from config\.json's rotary settings \(rope_theta 500000, .*\): its values differ/,
      ),
    });
    writeFileSync(join(copy, '..', 'config.json'), JSON.stringify({ ...config, rope_parameters: { rope_type: 'dynamic', factor: 2, rope_theta: 10_000 } }));
    await expect(measureDram(copy, { tokens: 600 })).rejects.toMatchObject({
      code: 'BAD_MODEL',
      message: expect.stringContaining("rope type 'dynamic' scales frequencies with the input length"),
    });
    rmSync(join(copy, '..', 'config.json'));
    await expect(measureDram(copy, { tokens: 600 })).rejects.toMatchObject({
      code: 'BAD_MODEL',
      message: expect.stringContaining('there is no config.json beside the model to rebuild it from'),
    });
  });
});
