/**
 * A model with external data straight from the Hugging Face hub cache (`hf download` without --local-dir):
 * models--<owner>--<name>/snapshots/<commit>/ holds only relative links into the repository's blobs/, the
 * external-data file's included. It must score exactly as the same files in a plain folder, under every load
 * path (rewritten, fusion off, no rewrite at all), and as the independent reference scorer scores the plain
 * folder. A link that leads out of the repository folder (into another repository, or anywhere else) is still
 * refused as BAD_MODEL naming the tensor and the file.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { hasReadableValues, readTensorValues } from '../../src/inspect/graph/tensor-values.js';
import { readModelGraph } from '../../src/inspect/graph/model-graph.js';
import { loadModel, type LoadModelOptions } from '../../src/model/onnx-model.js';
import { refusedWith } from '../support/expect-mlrb-error.js';
import { expectReferenceLogliks } from '../support/expect-reference.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { randomModelInputs } from '../support/random-requests.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-hub-external-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

// Weight matrices of 64 x 64 floats and more: well above the size under which exporters keep weights inline.
const SIZES = { vocabSize: 96, hiddenSize: 64, numHeads: 2, mlpSize: 128, numLayers: 2 } as const;
const COMMIT = '0123456789abcdef0123456789abcdef01234567';
const DATA_FILE = 'model.onnx_data';

const plain = writeTinyCausalLm(mkdtempSync(path.join(workDir, 'plain-')), { ...SIZES, externalData: true, seed: 7 });
const plainDir = path.dirname(plain.modelPath);

interface HubRepo {
  repoDir: string;
  snapshot: string;
}

/** models--<owner>--<name> with each file of the plain folder as blobs/<n> and a relative link to it in the snapshot. */
function hubRepo(hubDir: string, name: string): HubRepo {
  const repoDir = path.join(hubDir, `models--test--${name}`);
  const snapshot = path.join(repoDir, 'snapshots', COMMIT);
  mkdirSync(path.join(repoDir, 'blobs'), { recursive: true });
  mkdirSync(snapshot, { recursive: true });
  for (const [index, file] of readdirSync(plainDir).entries()) {
    const blob = `blob${index}`;
    copyFileSync(path.join(plainDir, file), path.join(repoDir, 'blobs', blob));
    symlinkSync(path.join('..', '..', 'blobs', blob), path.join(snapshot, file));
  }
  return { repoDir, snapshot };
}

const LOAD_PATHS: readonly [string, LoadModelOptions['rewrites']][] = [
  ['every rewrite', undefined],
  ['CPU fusion off', { cpuFusion: false }],
  ['no rewrite at all (the plain load)', { cpuFusion: false, sliceLmHead: false, pruneLastBlock: false }],
];

async function logliks(model: string, rewrites: LoadModelOptions['rewrites'], inputs: ReturnType<typeof randomModelInputs>) {
  const loaded = await loadModel({ model, threads: 1, ...(rewrites !== undefined ? { rewrites } : {}) });
  try {
    return { results: (await scoreModelInputs(loaded, inputs)).results, applied: loaded.rewrites.map((outcome) => outcome.applied) };
  } finally {
    loaded.dispose();
  }
}

describe('external data in a Hugging Face hub snapshot', () => {
  const { snapshot } = hubRepo(path.join(workDir, 'hub'), 'tiny');

  it.each(LOAD_PATHS)('%s: the snapshot scores exactly as the plain folder, and as the reference scorer', async (_, rewrites) => {
    const inputs = randomModelInputs(20, SIZES.vocabSize, 28, 5, 4);
    const fromPlain = await logliks(plainDir, rewrites, inputs);
    const fromHub = await logliks(snapshot, rewrites, inputs);
    expect(fromHub.applied).toEqual(fromPlain.applied);
    expect(fromHub.results.map((result) => result.loglik)).toEqual(fromPlain.results.map((result) => result.loglik));
    expect(fromHub.results.map((result) => result.isGreedy)).toEqual(fromPlain.results.map((result) => result.isGreedy));
    await expectReferenceLogliks(plain.modelPath, inputs, fromHub.results);
  });

  it('inspect reads the snapshot, its external-data file found through the link, and reads the same weights', async () => {
    const graph = await readModelGraph(path.join(snapshot, 'model.onnx'));
    expect(graph.info.externalFiles.map((file) => path.basename(file.path))).toEqual([DATA_FILE]);
    const plainGraph = await readModelGraph(plain.modelPath);
    expect(graph.tensors.map((tensor) => [tensor.name, tensor.location, tensor.offset, tensor.length])).toEqual(
      plainGraph.tensors.map((tensor) => [tensor.name, tensor.location, tensor.offset, tensor.length]),
    );
    // Values are reread by the real path the reader opened (inside the repository's blobs/), links refused.
    const weights = graph.tensors.filter((tensor) => tensor.location === 'external' && hasReadableValues(tensor));
    expect(weights.length).toBeGreaterThan(0);
    for (const weight of weights) {
      expect(weight.realFile).toContain(`${path.sep}blobs${path.sep}`);
      const twin = plainGraph.tensorByName.get(weight.name);
      expect(twin, weight.name).toBeDefined();
      if (twin !== undefined) expect(readTensorValues(weight)).toEqual(readTensorValues(twin));
    }
  });
});

describe('external data in a hub snapshot stays inside its repository folder', () => {
  /** A snapshot whose external-data link points at `target` (relative to the snapshot) instead of its own blob. */
  function snapshotWithDataAt(name: string, target: (repo: HubRepo) => string): string {
    const repo = hubRepo(path.join(workDir, `hub-${name}`), name);
    rmSync(path.join(repo.snapshot, DATA_FILE));
    symlinkSync(target(repo), path.join(repo.snapshot, DATA_FILE));
    return repo.snapshot;
  }

  const foreignTargets: readonly [string, (repo: HubRepo) => string][] = [
    [
      "another repository's blob",
      (repo) => {
        const other = hubRepo(path.dirname(repo.repoDir), 'other');
        const blob = readdirSync(path.join(other.repoDir, 'blobs')).find((file) => file === 'blob0') ?? 'blob0';
        return path.join('..', '..', '..', path.basename(other.repoDir), 'blobs', blob);
      },
    ],
    [
      'a file outside the hub cache',
      (repo) => {
        const outside = path.join(workDir, `outside-${path.basename(repo.repoDir)}.bin`);
        copyFileSync(path.join(plainDir, DATA_FILE), outside);
        return path.relative(repo.snapshot, outside);
      },
    ],
  ];

  it.each(foreignTargets)('a link into %s is BAD_MODEL naming the tensor and the file, for scoring and for inspect', async (name, target) => {
    const snapshot = snapshotWithDataAt(name.replace(/\W+/g, '-'), target);
    for (const rewrites of LOAD_PATHS.map(([, switches]) => switches)) {
      const error = await refusedWith('BAD_MODEL', loadModel({ model: snapshot, threads: 1, ...(rewrites !== undefined ? { rewrites } : {}) }));
      expect(error.message).toMatch(/tensor '[^']+'/);
      expect(error.message).toContain(`'${DATA_FILE}' (as written)`);
      expect(error.message).toContain('outside the model');
    }
    const inspected = await refusedWith('BAD_MODEL', readModelGraph(path.join(snapshot, 'model.onnx')));
    expect(inspected.message).toContain(`'${DATA_FILE}' (as written)`);
  });
});
