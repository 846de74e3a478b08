/**
 * The files beside a model (config.json, genai_config.json, tokenizer.json, tokenizer_config.json) come from
 * the agent being benchmarked. A FIFO, a link to /dev/zero or out of the folder, or an oversized file must
 * each end in a clear error within seconds that names the file and never prints a foreign file's bytes.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTinyTokenizerFiles } from '../support/model-builders/tiny-tokenizer.js';
import { readModelMetadata } from '../../src/model/model-metadata.js';
import { loadTokenizer } from '../../src/model/tokenizer.js';
import { runHostile } from '../support/run-hostile.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { thrownMlrbError } from '../support/expect-mlrb-error.js';

const root = makeTempDir('side-files');
const SECRET = 'root:x:0:0:SECRET-CONTENT';
const foreign = path.join(root, 'passwd');
writeFileSync(foreign, `{"bos_token_id": "${SECRET}"}\n`);

/** A model folder holding `files` (name → content, or a function that creates the entry). */
function modelDir(name: string, files: Record<string, string | ((file: string) => void)>): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(dir, file);
    if (typeof content === 'string') writeFileSync(target, content);
    else content(target);
  }
  return dir;
}
const fifo = (file: string): void => void execFileSync('mkfifo', [file]);
const linkTo =
  (target: string) =>
  (file: string): void =>
    symlinkSync(target, file);
const sparse =
  (bytes: number) =>
  (file: string): void => {
    writeFileSync(file, '');
    truncateSync(file, bytes);
  };

describe('model side files', () => {
  it('EXPECTED FAILURE – FIFOs and links to /dev/zero among the side files fail within seconds, naming the file', async () => {
    const tokenizer = buildTinyTokenizerFiles();
    const dirs = {
      configFifo: modelDir('config-fifo', { 'config.json': fifo }),
      genaiZero: modelDir('genai-zero', { 'genai_config.json': linkTo('/dev/zero') }),
      tokenizerConfigFifo: modelDir('tokenizer-config-fifo', { 'tokenizer_config.json': fifo }),
      tokenizerFifo: modelDir('tokenizer-fifo', { 'tokenizer.json': fifo }),
      tokenizerConfigBesideFifo: modelDir('tokenizer-config-beside', {
        'tokenizer.json': JSON.stringify(tokenizer.tokenizerJson),
        'tokenizer_config.json': fifo,
      }),
    };
    const outcomes = await runHostile([
      { op: 'readModelMetadata', dir: dirs.configFifo },
      { op: 'readModelMetadata', dir: dirs.genaiZero },
      { op: 'readModelMetadata', dir: dirs.tokenizerConfigFifo },
      { op: 'loadTokenizer', file: path.join(dirs.tokenizerFifo, 'tokenizer.json') },
      { op: 'loadTokenizer', file: path.join(dirs.tokenizerConfigBesideFifo, 'tokenizer.json') },
    ]);
    expect(outcomes).toMatchObject([
      { ok: false, code: 'BAD_MODEL', message: expect.stringMatching(/config\.json is not a regular file \(it is a FIFO\): .*config-fifo[/\\]config\.json/) },
      { ok: false, code: 'BAD_MODEL', message: expect.stringMatching(/genai_config\.json resolves outside .*genai-zero/) },
      { ok: false, code: 'BAD_MODEL', message: expect.stringMatching(/tokenizer_config\.json is not a regular file \(it is a FIFO\)/) },
      { ok: false, code: 'BAD_TOKENIZER', message: expect.stringMatching(/tokenizer\.json is not a regular file \(it is a FIFO\)/) },
      { ok: false, code: 'BAD_MODEL', message: expect.stringMatching(/tokenizer_config\.json is not a regular file/) },
    ]);
    for (const outcome of outcomes) expect(outcome.ms).toBeLessThan(2000);
  });

  it('EXPECTED FAILURE – a side file linked out of the model folder is refused without printing what it links to', () => {
    const metadataError = thrownMlrbError(() => readModelMetadata(modelDir('config-escape', { 'config.json': linkTo(foreign) })));
    expect(metadataError.code).toBe('BAD_MODEL');
    expect(metadataError.message).toMatch(/config\.json resolves outside/);
    const tokenizerError = thrownMlrbError(() =>
      loadTokenizer(path.join(modelDir('tokenizer-escape', { 'tokenizer.json': linkTo(foreign) }), 'tokenizer.json')),
    );
    expect(tokenizerError.code).toBe('BAD_TOKENIZER');
    for (const error of [metadataError, tokenizerError]) expect(error.message).not.toMatch(/SECRET|root:x/);
  });

  it('EXPECTED FAILURE – oversized side files name the cap (sparse files: nothing is written)', () => {
    const configError = thrownMlrbError(() => readModelMetadata(modelDir('config-huge', { 'config.json': sparse(5 * 1024 * 1024) })));
    expect(configError.message).toMatch(/config\.json is 5 MB, over the 4 MB limit/);
    const tokenizerError = thrownMlrbError(() =>
      loadTokenizer(path.join(modelDir('tokenizer-huge', { 'tokenizer.json': sparse(65 * 1024 * 1024) }), 'tokenizer.json')),
    );
    expect(tokenizerError).toMatchObject({ code: 'BAD_TOKENIZER', message: expect.stringMatching(/tokenizer\.json is 65 MB, over the 64 MB limit/) });
  });

  it("EXPECTED FAILURE – a config that is not JSON, or a tokenizer the library refuses, is described without the file's text", () => {
    const notJson = thrownMlrbError(() => readModelMetadata(modelDir('config-text', { 'config.json': SECRET })));
    expect(notJson.message).toMatch(/config\.json is not valid JSON/);
    const refused = thrownMlrbError(() =>
      loadTokenizer(path.join(modelDir('tokenizer-foreign', { 'tokenizer.json': `{"model": "${SECRET}"}` }), 'tokenizer.json')),
    );
    expect(refused.code).toBe('BAD_TOKENIZER');
    for (const error of [notJson, refused]) expect(error.message).not.toMatch(/SECRET|root:x/);
  });

  it("the tokenizer's hash is over the bytes it was built from (the token cache's key)", () => {
    const files = buildTinyTokenizerFiles();
    const json = JSON.stringify(files.tokenizerJson);
    const config = JSON.stringify(files.tokenizerConfig);
    const dir = modelDir('hash', { 'tokenizer.json': json, 'tokenizer_config.json': config });
    const tokenizer = loadTokenizer(path.join(dir, 'tokenizer.json'));
    const expected = createHash('sha256').update(json).update('\u0000tokenizer_config.json\u0000').update(config).digest('hex');
    expect(tokenizer.sha256).toBe(expected);
    writeFileSync(path.join(dir, 'tokenizer_config.json'), `${config} `);
    expect(loadTokenizer(path.join(dir, 'tokenizer.json')).sha256).not.toBe(expected);
  });
});
