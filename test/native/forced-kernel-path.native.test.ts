/**
 * MLRB_CPU_PATH=avx2 makes the fused CPU attention round as MLAS's FMA3/AVX2 kernels do on any CPU, so the
 * AVX2 path runs end to end even on an AVX-512 machine. Fused logliks must then match the unfused graph
 * within 1e-4 (the float32 rounding bound); on stories260K bit for bit where MLAS itself runs its AVX2
 * kernels here (on the generated graphs ORT fuses a residual Add into LayerNorm once attention is one node,
 * test/native/cpu-fusion.native.test.ts, so those agree to float32 rounding on every path).
 */
import '../support/force-avx2-path.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { buildModelInputs } from '../../src/eval/text-requests.js';
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import { writeTinyCausalLm, type WriteTinyCausalLmOptions } from '../support/model-builders/tiny-causal-lm.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadBinding } from '../../src/native/binding.js';
import { loadSuite } from '../../src/tasks/registry.js';
import type { ModelInput } from '../../src/engine/model-input.js';
import { runSupportScript } from '../support/child-process.js';
import { LOGLIK_TOLERANCE } from '../support/expect-reference.js';
import { randomModelInputs } from '../support/random-requests.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';
import { isMultipleChoice } from '../../src/tasks/types.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-forced-path-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const cpu = loadBinding().buildInfo().cpu;
const asMlas = cpu.mlasPath === 'avx2';
const storiesAgreement = asMlas ? 'bit for bit (MLAS runs its AVX2 kernels here)' : `within 1e-4 (MLAS runs ${cpu.mlasPath} here)`;

async function expectFusedAgrees(modelPath: string, inputs: readonly ModelInput[], bitForBit: boolean): Promise<void> {
  const fused = await loadModel({ model: modelPath, threads: 1 });
  const plain = await loadModel({ model: modelPath, threads: 1, cpuFusion: false });
  try {
    expect(fused.attentionFused).toBe(true);
    const fusedLogliks = (await scoreModelInputs(fused, inputs)).results.map((result) => result.loglik);
    const plainLogliks = (await scoreModelInputs(plain, inputs)).results.map((result) => result.loglik);
    if (bitForBit) {
      expect(fusedLogliks).toEqual(plainLogliks);
    } else {
      fusedLogliks.forEach((loglik, request) =>
        expect(Math.abs(loglik - (plainLogliks[request] as number)), `request ${request}`).toBeLessThan(LOGLIK_TOLERANCE),
      );
    }
  } finally {
    fused.dispose();
    plain.dispose();
  }
}

const graphs: [string, WriteTinyCausalLmOptions][] = [
  ['Where(mask, scores, fill)', {}],
  ['an additive float-min mask', { maskStyle: 'additive', maskFill: -3.4028234663852886e38 }],
  ['rotary embedding with grouped-query attention, head_dim 64', { rotary: true, hiddenSize: 128, numHeads: 2, kvRepeat: 2, maxPositions: 96 }],
];

describe('MLRB_CPU_PATH=avx2', () => {
  it('is the path in use, and says it was forced', () => {
    expect(cpu.kernelPath).toBe('avx2');
    expect(cpu.forced).toBe(true);
  });

  it('BAD CALL – an unknown MLRB_CPU_PATH: buildInfo() and loadSession() throw RangeError naming the accepted paths', async () => {
    type Outcome = { error: string | null; message: string };
    const child = await runSupportScript<{ buildInfo: Outcome; loadSession: Outcome }>('kernel-path-child.ts', [], { MLRB_CPU_PATH: 'avx1024' });
    for (const outcome of [child.buildInfo, child.loadSession]) {
      expect(outcome.error).toBe('RangeError');
      expect(outcome.message).toMatch(/MLRB_CPU_PATH=avx1024 is not a kernel path: use avx512, avx2 or baseline/);
    }
  });

  it.each(graphs)('%s: fused logliks match the unfused graph within 1e-4', async (_name, options) => {
    const lm = writeTinyCausalLm(mkdtempSync(path.join(workDir, 'lm-')), { ...options, seed: 71 });
    await expectFusedAgrees(lm.modelPath, randomModelInputs(24, lm.options.vocabSize, lm.options.maxPositions - 1, 71, 4), false);
  });

  it.skipIf(!hasShared)(`stories260K on real BLiMP rows: fused logliks match the unfused graph ${storiesAgreement}`, async () => {
    const suite = await loadSuite('blimp', { dataDir: sharedPaths.blimp, limit: 4 });
    const probe = await loadModel({ model: sharedPaths.stories });
    const inputs = buildModelInputs(
      probe,
      suite.tasks.filter(isMultipleChoice).flatMap((task) => buildTaskRequests(task)),
      (index) => `request ${index}`,
    );
    probe.dispose();
    await expectFusedAgrees(sharedPaths.stories, inputs, asMlas);
  });
});
