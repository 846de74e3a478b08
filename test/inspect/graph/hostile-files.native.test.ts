/**
 * The streaming reader (native/onnx) against models that point their weights at files they have no business
 * reading, at files that would block or never end, and at tensors whose dims lie. Locations must resolve,
 * symlinks included, inside the model's folder, and a refusal names the tensor and the location as written
 * but tells nothing about the foreign file: a message for an existing file outside is the message for a
 * missing one. Only regular files are opened, without blocking. Dims are checked for sign, overflow in any
 * order and against the payload, empty tensors included.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MlrbError } from '../../../src/errors.js';
import { readModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { encodeRawModel, type RawTensor } from '../support/raw-model.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('hostile-files');
const FLOAT = 1;
const SECRET_BYTES = 1221;
let counter = 0;

/** A folder holding model.onnx with the one tensor `w`, plus a secret file beside (outside) the folder. */
function modelWith(tensor: Omit<RawTensor, 'name'>): { folder: string; modelPath: string; secret: string } {
  const root = tempPath(`case-${counter++}`);
  const folder = join(root, 'model');
  mkdirSync(folder, { recursive: true });
  const secret = join(root, 'secret.bin');
  writeFileSync(secret, new Uint8Array(SECRET_BYTES));
  const modelPath = join(folder, 'model.onnx');
  writeFileSync(modelPath, encodeRawModel({ tensors: [{ name: 'w', ...tensor }], nodes: [{ opType: 'Identity', inputs: ['w'], outputs: ['y'] }] }));
  return { folder, modelPath, secret };
}

const external = (location: string, length = 16): Omit<RawTensor, 'name'> => ({ dataType: FLOAT, dims: [4], external: { location, offset: 0, length } });

async function badModel(modelPath: string): Promise<MlrbError> {
  const error = await readModelGraph(modelPath).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error, `${modelPath} should be refused`).toBeInstanceOf(MlrbError);
  expect((error as MlrbError).code).toBe('BAD_MODEL');
  return error as MlrbError;
}

/** The refusal for a location outside the folder: it names the tensor and the location, and nothing about the target. */
async function expectOutside(modelPath: string, location: string): Promise<string> {
  const { message } = await badModel(modelPath);
  expect(message).toContain("tensor 'w'");
  expect(message).toContain(`'${location}' (as written)`);
  expect(message).toContain('outside the model');
  expect(message).not.toContain(String(SECRET_BYTES));
  expect(message).not.toMatch(/does not exist|which has only|bytes/);
  return message;
}

describe('external data stays inside the model folder', () => {
  it('EXPECTED FAILURE – `..` out of the folder: the same message whether the foreign file exists or not', async () => {
    const { modelPath, secret } = modelWith(external('../secret.bin'));
    const present = await expectOutside(modelPath, '../secret.bin');
    rmSync(secret);
    expect(await expectOutside(modelPath, '../secret.bin')).toBe(present);
  });

  it('EXPECTED FAILURE – `..` hidden mid-path, and an absolute location', async () => {
    const hidden = modelWith(external('sub/../../secret.bin'));
    mkdirSync(join(hidden.folder, 'sub'));
    await expectOutside(hidden.modelPath, 'sub/../../secret.bin');
    const absolute = modelWith(external('/etc/passwd'));
    const { message } = await badModel(absolute.modelPath);
    expect(message).toContain("'/etc/passwd' (as written)");
    expect(message).not.toMatch(/which has only|does not exist/);
  });

  it('EXPECTED FAILURE – a symlink inside the folder to a file outside (absolute and relative), or to a folder outside', async () => {
    const absoluteLink = modelWith(external('link.bin'));
    symlinkSync(absoluteLink.secret, join(absoluteLink.folder, 'link.bin'));
    await expectOutside(absoluteLink.modelPath, 'link.bin');

    const relativeLink = modelWith(external('link.bin'));
    symlinkSync('../secret.bin', join(relativeLink.folder, 'link.bin'));
    await expectOutside(relativeLink.modelPath, 'link.bin');

    const folderLink = modelWith(external('up/secret.bin'));
    symlinkSync('..', join(folderLink.folder, 'up'));
    await expectOutside(folderLink.modelPath, 'up/secret.bin');

    // A dangling link out of the folder reads exactly like one to an existing file.
    const dangling = modelWith(external('link.bin'));
    symlinkSync(join(dangling.folder, '..', 'nothing.bin'), join(dangling.folder, 'link.bin'));
    expect((await expectOutside(dangling.modelPath, 'link.bin')).replace(dangling.modelPath, '')).toBe(
      (await expectOutside(absoluteLink.modelPath, 'link.bin')).replace(absoluteLink.modelPath, ''),
    );
  });

  it('a symlink that stays inside the folder is followed, and the weights are read', async () => {
    const { folder, modelPath } = modelWith(external('weights/link.bin'));
    mkdirSync(join(folder, 'weights'));
    writeFileSync(join(folder, 'data.bin'), new Uint8Array(16));
    symlinkSync('../data.bin', join(folder, 'weights', 'link.bin'));
    const graph = await readModelGraph(modelPath);
    expect(graph.info.tensors.find((tensor) => tensor.name === 'w')).toMatchObject({ location: 'external', length: 16, dims: [4] });
  });

  it('EXPECTED FAILURE – a missing file inside the folder is named as such', async () => {
    const { folder, modelPath } = modelWith(external('weights.bin'));
    const { message } = await badModel(modelPath);
    expect(message).toContain(join(folder, 'weights.bin'));
    expect(message).toContain('does not exist');
  });
});

describe('only regular files are opened, and nothing blocks', () => {
  it('EXPECTED FAILURE – a FIFO as external data, and as the model itself', { timeout: 10_000 }, async () => {
    const { folder, modelPath } = modelWith(external('fifo.bin'));
    execFileSync('mkfifo', [join(folder, 'fifo.bin')]);
    const { message } = await badModel(modelPath);
    expect(message).toContain(join(folder, 'fifo.bin'));
    expect(message).toContain('a FIFO');

    const fifoModel = join(folder, 'fifo.onnx');
    execFileSync('mkfifo', [fifoModel]);
    expect((await badModel(fifoModel)).message).toContain(fifoModel);
  });

  it('EXPECTED FAILURE – a socket as external data', async () => {
    const { folder, modelPath } = modelWith(external('sock'));
    const server: Server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(join(folder, 'sock'), resolve));
    try {
      const { message } = await badModel(modelPath);
      expect(message).toContain(join(folder, 'sock'));
      expect(message).toContain("tensor 'w'");
    } finally {
      server.close();
    }
  });
});

describe('dims are checked against overflow and the payload', () => {
  const cases: [string, Omit<RawTensor, 'name'>, string][] = [
    ['an empty tensor with an absurd axis ([2^30, 0])', { dataType: FLOAT, dims: [2 ** 30, 0] }, 'no elements'],
    ['an overflow behind a zero dim ([0, 2^33, 2^33])', { dataType: FLOAT, dims: [0, 2 ** 33, 2 ** 33] }, 'overflow'],
    ['an element count whose byte count overflows ([2^31, 2^31] float32)', { dataType: FLOAT, dims: [2 ** 31, 2 ** 31], raw: new Uint8Array(4) }, 'overflow'],
    ['a negative dim', { dataType: FLOAT, dims: [-1, 4], raw: new Uint8Array(16) }, 'negative'],
    ['an empty tensor with a payload', { dataType: FLOAT, dims: [0, 4], raw: new Uint8Array(16) }, 'raw_data holds 16'],
    ['an external range shorter than the dims need', { ...external('data.bin', 8) }, 'need 16 bytes'],
  ];
  it.each(cases)('EXPECTED FAILURE – %s', async (_name, tensor, fragment) => {
    const { folder, modelPath } = modelWith(tensor);
    writeFileSync(join(folder, 'data.bin'), new Uint8Array(64));
    const { message } = await badModel(modelPath);
    expect(message).toContain("tensor 'w'");
    expect(message).toContain(modelPath);
    expect(message).toContain(fragment);
  });

  it('empty tensors of ordinary shape are fine', async () => {
    for (const dims of [[0], [4, 0], [1, 32, 0, 128]]) {
      const { modelPath } = modelWith({ dataType: FLOAT, dims });
      const graph = await readModelGraph(modelPath);
      expect(graph.info.tensors.find((tensor) => tensor.name === 'w')).toMatchObject({ dims, length: 0 });
    }
  });
});
