/**
 * The DRAM probes against graphs that game a synthetic probe, and an honest model a name-based reading rejected.
 * The fixtures and the figures they are held to come from scripts/edge/build_dram_fixtures.py: each model was run by
 * plain onnxruntime in Python on 2,000 tokens of the package's real text (and on random ids), and the peak RSS
 * delta of that process is in the manifest. The measurement here must find at least most of what plain ORT found on
 * real text, however cheap the graph makes random ids, one length, or ids it does not expect.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkDramBudget, resolveBudget } from '../../src/inspect/dram-check.js';
import { estimateDram } from '../../src/inspect/dram-estimate.js';
import { measureDram, type DramMeasurement } from '../../src/inspect/dram-measure.js';
import { inspectModel } from '../../src/inspect/inspect-report.js';
import { checkTrack } from '../../src/inspect/track-check.js';
import { useTempDirectory } from './support/tmp-dir.js';

const FIXTURES = join(__dirname, '..', 'fixtures', 'edge', 'dram');
interface PlainOrt { readonly text2000: number; readonly random2000: number; readonly text1500?: number }
interface DramManifest {
  readonly kitTokens: number;
  readonly fixtures: Readonly<Record<string, { readonly plainOrtPeakDeltaBytes: PlainOrt; readonly tokenEmbedding?: string; readonly positionTable?: string; readonly positionRows?: number; readonly vocab?: number }>>;
}
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as DramManifest;
const tempPath = useTempDirectory('dram-probes');

/** The fixture's folder unpacked: model.onnx, tokenizer.json and config.json when it has one. */
function unpack(name: string): string {
  const folder = tempPath(name);
  mkdirSync(folder);
  writeFileSync(join(folder, 'model.onnx'), gunzipSync(readFileSync(join(FIXTURES, name, 'model.onnx.gz'))));
  copyFileSync(join(FIXTURES, name, 'tokenizer.json'), join(folder, 'tokenizer.json'));
  if (name === 'gpt2-bytes-2048') copyFileSync(join(FIXTURES, name, 'config.json'), join(folder, 'config.json'));
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
      expect(measurement.decidingProbe).toMatch(/^text/);
      // A budget between the two figures: passed when random ids were the probe, failed now.
      const check = checkDramBudget(estimateDram(await inspectModel(model)), measurement, resolveBudget(undefined, Math.round(plain.text2000 / 2)));
      expect(check.verdict.status).toBe('fail');
      expect(check.verdict.reasons[0]).toMatch(/^measured peak DRAM .* exceeds the DRAM budget/);
    });
  }

  it('EXPECTED FAILURE – cheap-at-2000: cheap at exactly the kit\'s length, measured at the second length', async () => {
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

  it('is measured on 2,000 tokens of text, as plain onnxruntime measures it, and passes the training track\'s DRAM limit', async () => {
    const report = await checkTrack('edge-training', model, { threads: 1 });
    const measurement = report.checks.dram.measurement!;
    expect(report.checks.dram.measurementError).toBeNull();
    expect(probe(measurement, 'text').tokens).toBe(manifest.kitTokens);
    const plain = facts.plainOrtPeakDeltaBytes.text2000;
    expect(Math.abs(probe(measurement, 'text').peakDeltaBytes - plain) / plain).toBeLessThan(0.25);
    expect(report.checks.dram.verdict.status).toBe('pass');
  });
});
