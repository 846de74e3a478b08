/** Loading ONNX Runtime from a path: a wrong library is a clear ORT_LOAD error naming the file. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBinding } from '../../src/native/binding.js';
import { bundledOrtLibraryPath, initOrtRuntime } from '../../src/native/ort-library.js';
import { makeTempDir } from '../support/temp-dirs.js';

describe('ONNX Runtime library loading', () => {
  it('EXPECTED FAILURE – a path that does not exist', () => {
    expect(() => initOrtRuntime('/nonexistent/libonnxruntime.so')).toThrow(
      expect.objectContaining({ code: 'ORT_LOAD', message: expect.stringContaining('/nonexistent/libonnxruntime.so') }),
    );
  });

  it('EXPECTED FAILURE – a file that is not a shared library', () => {
    const fake = path.join(makeTempDir('ort'), 'libonnxruntime.so');
    writeFileSync(fake, 'not an ELF file');
    expect(() => initOrtRuntime(fake)).toThrow(expect.objectContaining({ code: 'ORT_LOAD', message: expect.stringContaining(fake) }));
  });

  it("loads onnxruntime-node's library and reports its version", () => {
    const info = initOrtRuntime();
    expect(info.libraryPath).toBe(bundledOrtLibraryPath());
    expect(info.version).toMatch(/^1\.\d+\.\d+/);
    expect(loadBinding().buildInfo().runtime?.version).toBe(info.version);
  });

  it('EXPECTED FAILURE – a second, different library in the same process', () => {
    initOrtRuntime();
    const other = path.join(makeTempDir('ort'), 'libother.so');
    writeFileSync(other, 'x');
    expect(() => initOrtRuntime(other)).toThrow(expect.objectContaining({ code: 'ORT_LOAD', message: expect.stringMatching(/already loaded/) }));
  });

  it('MLRB_ORT_LIBRARY names the library', () => {
    process.env.MLRB_ORT_LIBRARY = bundledOrtLibraryPath();
    try {
      expect(initOrtRuntime().libraryPath).toBe(bundledOrtLibraryPath());
    } finally {
      delete process.env.MLRB_ORT_LIBRARY;
    }
  });
});
