/**
 * Eligibility by the rules as written: a Phi-shaped model handed in unchanged in FP16 meets every rule of the
 * compression track (nothing has to be removed: the rules ask only for 12 GB of DRAM, no quantization, FP16 or FP32
 * weights and Phi-2 as the origin), and the same model in bfloat16 does not ("The model must be submitted in FP16 or
 * FP32 format"). The fixtures and the DRAM figure plain onnxruntime measured come from
 * scripts/edge/build_track_fixtures.py; the base is the same model's float32 export, given as --base (its weights).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkTrack } from '../../src/inspect/track/track-check.js';
import { judgeEligibility } from '../../src/mlrb/eligibility.js';
import { useTempDirectory } from '../inspect/support/tmp-dir.js';

const FIXTURES = join(__dirname, '..', 'fixtures', 'edge', 'track');
interface TrackFixture {
  readonly file: string;
  readonly dtype: string;
  readonly loadsInPlainOrt: string;
  readonly plainOrtPeakDeltaBytes?: { readonly text2000: number };
}
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as { fixtures: Readonly<Record<string, TrackFixture>> };
const tempPath = useTempDirectory('check-track-eligibility');

function unpack(name: string): string {
  const folder = tempPath(name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'model.onnx'), gunzipSync(readFileSync(join(FIXTURES, name, 'model.onnx.gz'))));
  for (const file of ['config.json', 'tokenizer.json']) copyFileSync(join(FIXTURES, name, file), join(folder, file));
  return join(folder, 'model.onnx');
}
const base = tempPath('base.onnx');
writeFileSync(base, gunzipSync(readFileSync(join(FIXTURES, 'base.onnx.gz'))));
const COMPRESSION = { kind: 'track', track: 'edge-compression' } as const;

describe('edge-compression, the rules as written', () => {
  it('an unpruned FP16 Phi-shaped model is eligible: 0 % removed is information, not a failure', async () => {
    const facts = manifest.fixtures['phi-fp16']!;
    expect(facts.dtype).toBe('float16');
    const report = await checkTrack('edge-compression', unpack('phi-fp16'), { base, threads: 1 });
    expect(report.verdict.reasons).toEqual([]);
    expect(report.checks.dtype.verdict.status).toBe('pass');
    expect(report.checks.lineage).toMatchObject({ status: 'derived', notJudged: null });
    expect(report.checks.dram.basis).toBe('measured');
    const plain = facts.plainOrtPeakDeltaBytes!.text2000;
    const text = report.checks.dram.measurement!.probes.find((probe) => probe.kind === 'text')!;
    expect(Math.abs(text.peakDeltaBytes - plain) / plain).toBeLessThan(0.25);
    // check-pruning's own stricter verdict rides along, and says nothing was removed; it gates nothing.
    expect(report.pruning?.percentRemoved).toBe(0);
    expect(report.pruning?.verdict.status).toBe('fail');
    const eligibility = judgeEligibility(COMPRESSION, { kind: 'report', report });
    expect(eligibility.status).toBe('eligible');
    expect(eligibility.gates.map((gate) => [gate.check, gate.status])).toEqual([
      ['quantization', 'pass'],
      ['dtype', 'pass'],
      ['dram', 'pass'],
      ['lineage', 'pass'],
    ]);
  });

  it('EXPECTED FAILURE – the same model in bfloat16 is not eligible: its dtype gate fails, naming the weights', async () => {
    const facts = manifest.fixtures['phi-bf16']!;
    expect(facts.dtype).toBe('bfloat16');
    const report = await checkTrack('edge-compression', unpack('phi-bf16'), { base, threads: 1 });
    const dtype = report.verdict.reasons.filter((finding) => finding.check === 'dtype');
    expect(dtype).toHaveLength(1);
    expect(dtype[0]!.message).toMatch(/weight tensor\(s\) are not FP16\/FP32 .*bfloat16/);
    expect(report.checks.quantization.verdict.reasons).toEqual([]); // bfloat16 is no quantization
    const eligibility = judgeEligibility(COMPRESSION, { kind: 'report', report });
    expect(eligibility.status).toBe('ineligible');
    expect(eligibility.gates.find((gate) => gate.check === 'dtype')?.status).toBe('fail');
    // Plain onnxruntime cannot run it on the CPU either (the manifest records why); the DRAM gate says so too.
    expect(facts.loadsInPlainOrt).not.toBe('yes');
    expect(report.checks.dram.measurementError).not.toBeNull();
  });

  it('says where each limit comes from, in bytes, GB and GiB, and lists the rules no file can prove as unchecked', async () => {
    const report = await checkTrack('edge-training', unpack('phi-fp16'), { measureDram: false });
    expect(report.checks.dram.budget).toMatchObject({ bytes: 1e9, gb: 1, gib: 1e9 / 2 ** 30, source: 'edge-training' });
    expect(report.checks.dram.budget?.rule).toMatch(/MLRB's edge_llm_training prompt .*1 GB DRAM.*the Edge-LLM challenge itself says 12 GB/);
    expect(Object.keys(report.rules.gates)).toEqual(['quantization', 'dtype', 'dram']);
    expect(report.rules.unchecked.join('\n')).toMatch(/C4 and Alpaca[\s\S]*no pre-trained LLMs/);
    expect(report.checks.lineage).toBeUndefined(); // the training track has no base
  });
});
