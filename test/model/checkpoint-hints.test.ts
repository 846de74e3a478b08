/**
 * Weights in another format than ONNX, as their own libraries wrote them (transformers' safetensors, torch.save's
 * zip and legacy pickle, gguf's writer: scripts/model/build_checkpoint_fixtures.py), given as MODEL or found in a
 * MODEL folder without an .onnx file: the error names the format and the optimum-cli command that makes the
 * ONNX graph, instead of ONNX Runtime's "Protobuf parsing failed". A real ONNX file is not mistaken for one.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { checkpointFormatOf } from '../../src/model/checkpoint-format.js';
import { resolveModelFile } from '../../src/model/model-path.js';
import { thrownMlrbError } from '../support/expect-mlrb-error.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { writeTinyBlimp } from '../support/tiny-datasets.js';

const fixtures = path.join(repoRoot, 'test', 'fixtures');
const files = {
  safetensors: path.join(fixtures, 'model-metrics', 'tiny-llama', 'hf', 'model.safetensors'),
  shardedSafetensors: path.join(fixtures, 'edge', 'lineage', 'base-hf', 'model-00001-of-00002.safetensors'),
  pytorchZip: path.join(fixtures, 'checkpoints', 'pytorch_model.bin'),
  pytorchPickle: path.join(fixtures, 'checkpoints', 'legacy.pt'),
  gguf: path.join(fixtures, 'checkpoints', 'model.gguf'),
};
let dir = '';
beforeAll(() => {
  dir = makeTempDir('checkpoint-hints');
});

describe('checkpointFormatOf', () => {
  it('knows each format by its bytes', () => {
    expect(checkpointFormatOf(files.safetensors)).toBe('safetensors');
    expect(checkpointFormatOf(files.shardedSafetensors)).toBe('safetensors');
    expect(checkpointFormatOf(files.pytorchZip)).toBe('pytorch');
    expect(checkpointFormatOf(files.pytorchPickle)).toBe('pytorch');
    expect(checkpointFormatOf(files.gguf)).toBe('gguf');
  });

  it('an ONNX graph, a folder and a missing file are none of them', () => {
    const model = writeTinyCausalLm(path.join(dir, 'onnx'));
    expect(checkpointFormatOf(model.modelPath)).toBeNull();
    expect(checkpointFormatOf(dir)).toBeNull();
    expect(checkpointFormatOf(path.join(dir, 'missing'))).toBeNull();
  });
});

describe('EXPECTED FAILURE – MODEL is a checkpoint, not ONNX', () => {
  it.each([
    ['safetensors', files.safetensors, 'a safetensors checkpoint'],
    ['PyTorch (zip)', files.pytorchZip, 'a PyTorch checkpoint'],
    ['PyTorch (pickle)', files.pytorchPickle, 'a PyTorch checkpoint'],
  ])('%s: names the format and the optimum export of its folder', (_, file, what) => {
    const error = thrownMlrbError(() => resolveModelFile(file));
    expect(error.code).toBe('BAD_MODEL');
    expect(error.message).toContain(`${file} is ${what}, not an ONNX graph`);
    expect(error.message).toContain(`optimum-cli export onnx --model ${path.dirname(file)} --task text-generation-with-past ${path.dirname(file)}-onnx`);
  });

  it('GGUF: the conversion to a Hugging Face folder, then the export', () => {
    const error = thrownMlrbError(() => resolveModelFile(files.gguf));
    expect(error.code).toBe('BAD_MODEL');
    expect(error.message).toContain(`${files.gguf} is a GGUF file`);
    expect(error.message).toContain("gguf_file='model.gguf'");
    expect(error.message).toContain('optimum-cli export onnx --model HF_DIR --task text-generation-with-past');
  });

  it('a model folder with weights and no .onnx file says the same of the weights it holds', () => {
    const folder = path.join(dir, 'hf-folder');
    mkdirSync(folder);
    copyFileSync(files.safetensors, path.join(folder, 'model.safetensors'));
    const error = thrownMlrbError(() => resolveModelFile(folder));
    expect(error.message).toContain(`model folder ${folder} holds no .onnx file`);
    expect(error.message).toContain(`optimum-cli export onnx --model ${folder} --task text-generation-with-past`);
  });

  it('through the CLI: exit 1 with the hint, not ONNX Runtime\'s "Protobuf parsing failed"', async () => {
    const data = path.join(dir, 'blimp');
    writeTinyBlimp(data, ['adjunct_island']);
    let stderr = '';
    const io = { stdout: { write: () => true }, stderr: { write: (chunk: string) => ((stderr += chunk), true) } } as unknown as Parameters<typeof main>[1];
    expect(await main([files.pytorchZip, '--tasks', 'blimp_adjunct_island', '--data', data, '--no-cache'], io)).toBe(1);
    expect(stderr).toContain('error [BAD_MODEL]');
    expect(stderr).toContain('optimum-cli export onnx');
    expect(stderr).not.toContain('Protobuf');
  });
});
