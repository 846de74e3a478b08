/**
 * The no-quantization check against exported models: scripts/edge/build_quant_fixtures.py built each fixture
 * (clean, onnxruntime-quantized, and the evasions: int8 stored flat, packed into int32, an int8 embedding,
 * weights disguised as input-dependent) and wrote in manifest.json what it built: the verdict, the integer
 * tensors that become weights and the op that reads each, the chains it wrote, and the integer share of the
 * stored bytes. Every expectation here comes from that manifest.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExitError } from '../../../src/cli/exit-error.js';
import { runInspectCommand } from '../../../src/cli/inspect-command.js';
import { readModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { checkQuantization, type QuantizationCheck } from '../../../src/inspect/quantization/quantization-check.js';
import { MIN_SOURCE_ELEMENTS } from '../../../src/inspect/quantization/dataflow.js';
import { INTEGER_STORAGE_SHARE_LIMIT } from '../../../src/inspect/quantization/storage.js';
import { SMALL_CONSTANT } from '../../../src/inspect/quantization/weight-provenance.js';

interface ManifestEntry {
  readonly file: string;
  readonly description: string;
  readonly verdict: 'pass' | 'fail';
  /** tensor → op type that reads it as a weight */
  readonly dataFlowTensors: Readonly<Record<string, string>>;
  /** tensor → op types from the tensor to its reader, where the script wrote the chain */
  readonly dataFlowPaths: Readonly<Record<string, readonly string[]>>;
  readonly quantizationOps: readonly string[];
  readonly integerValueShare: number;
  readonly storageTensors: readonly string[];
  readonly storageVerdict: 'pass' | 'fail';
}

interface Manifest {
  readonly storageShareLimit: number;
  readonly minSourceElements: number;
  readonly smallConstant: { readonly floatElements: number; readonly otherElements: number };
  readonly fixtures: readonly ManifestEntry[];
}

const fixtureDirectory = fileURLToPath(new URL('../../fixtures/edge/quant/', import.meta.url));
const manifest = JSON.parse(readFileSync(join(fixtureDirectory, 'manifest.json'), 'utf8')) as Manifest;
const fixturePath = (entry: ManifestEntry): string => join(fixtureDirectory, entry.file);
const entryNamed = (file: string): ManifestEntry => {
  const entry = manifest.fixtures.find((candidate) => candidate.file === file);
  if (entry === undefined) throw new Error(`manifest.json lists no ${file}`);
  return entry;
};

function expectAsBuilt(check: QuantizationCheck, entry: ManifestEntry): void {
  expect(check.verdict.status).toBe(entry.verdict);
  expect(Object.fromEntries(check.disallowedWeights.map((weight) => [weight.tensor, weight.reader.opType]))).toEqual(entry.dataFlowTensors);
  for (const [tensor, opTypes] of Object.entries(entry.dataFlowPaths)) {
    const weight = check.disallowedWeights.find((candidate) => candidate.tensor === tensor);
    expect(
      weight?.path.map((step) => step.opType),
      tensor,
    ).toEqual(opTypes);
  }
  expect([...new Set(check.quantizationNodes.map((node) => node.opType))].sort()).toEqual(entry.quantizationOps);
  expect(check.integerStorage.share).toBeCloseTo(entry.integerValueShare, 3);
  expect([...check.integerStorage.tensors].sort()).toEqual(entry.storageTensors);
  expect(check.integerStorage.exceeded ? 'fail' : 'pass').toBe(entry.storageVerdict);
}

async function runInspect(argv: string[]): Promise<{ code: number; stdout: string }> {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  let code: number;
  try {
    code = await runInspectCommand(argv, { stdout, stderr: new PassThrough() });
  } catch (error) {
    // --strict reports a failing verdict as an ExitError, which the CLI's boundary turns into the exit code.
    if (!(error instanceof ExitError)) throw error;
    code = error.exitCode;
  }
  return { code, stdout: Buffer.concat(chunks).toString() };
}

describe('no-quantization check on exported models (manifest from build_quant_fixtures.py)', () => {
  it('the script and the check agree on the storage limit and the smallest weight-sized tensor', () => {
    expect(manifest.storageShareLimit).toBe(INTEGER_STORAGE_SHARE_LIMIT);
    expect(manifest.minSourceElements).toBe(MIN_SOURCE_ELEMENTS);
    expect(manifest.smallConstant).toEqual(SMALL_CONSTANT);
    expect(manifest.fixtures.map((entry) => entry.verdict).sort()).toEqual([...Array(4).fill('pass'), ...Array(7).fill('fail')].sort());
  });

  for (const entry of manifest.fixtures) {
    it(`${entry.file}: ${entry.verdict.toUpperCase()} (${entry.description})`, async () => {
      expectAsBuilt(checkQuantization(await readModelGraph(fixturePath(entry))), entry);
    });
  }

  it('names each path from the tensor to the node that reads it, and says so in the reasons', async () => {
    const entry = entryNamed('llama-int8-packed-int32.onnx');
    const check = checkQuantization(await readModelGraph(fixturePath(entry)));
    for (const weight of check.disallowedWeights) {
      expect(weight.route.startsWith(`${weight.tensor} → Cast `)).toBe(true);
      expect(weight.route.endsWith(`→ MatMul ${weight.reader.node}`)).toBe(true);
      expect(weight.weightReads).toBe(1);
    }
    expect(check.verdict.reasons.join('\n')).toContain(
      `${Object.keys(entry.dataFlowTensors).length} weight(s) are not stored float data read through layout-only ops`,
    );
  });

  it('the type-and-rank view alone misses weights stored 1-D or packed into int32: data flow is what fails them', async () => {
    for (const file of ['llama-int8-flat-reshape.onnx', 'llama-int8-packed-int32.onnx']) {
      const check = checkQuantization(await readModelGraph(fixturePath(entryNamed(file))));
      expect(check.quantizedTensors, file).toEqual([]);
      expect(check.quantizationNodes, file).toEqual([]);
      expect(check.verdict.status, file).toBe('fail');
    }
  });
});

describe('mlrb-eval inspect on the same fixtures', () => {
  for (const entry of manifest.fixtures) {
    it(`${entry.file}: --strict exits ${entry.verdict === 'pass' ? 0 : 1}; --json and the text name what the manifest lists`, async () => {
      const json = await runInspect([fixturePath(entry), '--json', '--strict', '--estimate-only']);
      expect(json.code).toBe(entry.verdict === 'pass' ? 0 : 1);
      const report = JSON.parse(json.stdout) as { quantization: QuantizationCheck };
      expectAsBuilt(report.quantization, entry);

      const text = await runInspect([fixturePath(entry), '--estimate-only']);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`Quantization (weights must be fp16/fp32): ${entry.verdict.toUpperCase()}`);
      const named = Object.keys(entry.dataFlowTensors);
      // The reasons list the first eight; any of the manifest's tensors among them shows the text names real ones.
      if (named.length > 0) expect(named.some((tensor) => text.stdout.includes(`${tensor} (`))).toBe(true);
      if (entry.storageVerdict === 'fail')
        expect(text.stdout).toMatch(/% of the stored tensor bytes are integer, bool or string data whose values enter float computation \(limit 10\.0%\)/);
    });
  }
});
