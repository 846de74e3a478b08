/**
 * EXPECTED FAILURE – a `git clone` of a Hugging Face repository without git-lfs leaves pointer files (git-lfs spec
 * v1) in place of the model, the tokenizer, the config and the parquet shards. Each is named as a pointer, with
 * the way out, rather than as a corrupt ONNX, JSON or parquet file.
 */
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigJson } from '../../src/model/hf-config.js';
import { resolveModelFile } from '../../src/model/model-path.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadTokenizer } from '../../src/model/tokenizer.js';
import { loadSuite } from '../../src/tasks/registry.js';
import { rejectedMlrbError } from '../support/expect-mlrb-error.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

/** A pointer as git-lfs writes it (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md). */
const POINTER = 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n';
const REASON = 'is a Git LFS pointer, not the file itself (a git clone without git-lfs): run `git lfs pull` in the clone, or download with `hf download`';

function caught(run: () => unknown): { code?: unknown; message: string } {
  try {
    run();
  } catch (error) {
    return error as { code?: unknown; message: string };
  }
  throw new Error('expected a failure');
}

describe('EXPECTED FAILURE – Git LFS pointers in place of files', () => {
  const root = makeTempDir('git-lfs-pointer');
  const { modelPath } = writeTinyCausalLm(path.join(root, 'model'));

  it('the model file, named directly or through its folder', () => {
    writeFileSync(modelPath, POINTER);
    for (const model of [modelPath, path.dirname(modelPath)]) {
      const error = caught(() => resolveModelFile(model));
      expect(error.code).toBe('BAD_MODEL');
      expect(error.message).toBe(`model file ${modelPath} ${REASON}`);
    }
  });

  it('config.json and tokenizer.json', () => {
    const config = path.join(path.dirname(modelPath), 'config.json');
    writeFileSync(config, POINTER);
    const configError = caught(() => readConfigJson(config));
    expect(configError.code).toBe('BAD_MODEL');
    expect(configError.message).toBe(`config.json ${REASON}: ${config}`);
    const tokenizer = path.join(path.dirname(modelPath), 'tokenizer.json');
    writeFileSync(tokenizer, POINTER);
    const tokenizerError = caught(() => loadTokenizer(tokenizer));
    expect(tokenizerError.code).toBe('BAD_TOKENIZER');
    expect(tokenizerError.message).toBe(`${tokenizer} ${REASON}`);
  });

  it('an external-data file, which ONNX Runtime reports only as out of bounds', async () => {
    const external = writeTinyCausalLm(path.join(root, 'external'), { externalData: true });
    const data = path.join(path.dirname(external.modelPath), 'model.onnx_data');
    writeFileSync(data, POINTER);
    const error = await rejectedMlrbError(() => loadModel({ model: external.modelPath }), 'loading a model whose external data is a pointer');
    expect(error.code).toBe('BAD_MODEL');
    expect(error.message).toBe(`cannot load ${external.modelPath}: ${data} ${REASON}`);
  });

  it('a hub parquet shard', async () => {
    const dir = path.join(root, 'superglue');
    cpSync(path.join(repoRoot, 'test', 'fixtures', 'hub', 'parquet', 'superglue'), dir, { recursive: true });
    const shard = path.join(dir, 'boolq', 'validation-00000-of-00001.parquet');
    writeFileSync(shard, POINTER);
    const error = await rejectedMlrbError(() => loadSuite('boolq', { dataDir: dir }), 'loading a pointer shard');
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toBe(`SuperGLUE boolq hub validation file ${REASON}: ${shard}`);
  });

  it('a short file that is not a pointer is still described as what it fails to be', () => {
    const config = path.join(root, 'not-a-pointer.json');
    writeFileSync(config, 'version 1\n');
    expect(caught(() => readConfigJson(config)).message).toMatch(/^not-a-pointer\.json is not valid JSON \(a syntax error/);
  });
});
