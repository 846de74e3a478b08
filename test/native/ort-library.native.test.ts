/**
 * Loading ONNX Runtime: a wrong library is a clear ORT_LOAD error naming the file; without one named, the
 * library is looked for beside the addon, then in onnxruntime-node, and a miss names every place looked.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addonLocation, loadBinding, loadedAddonPath } from '../../src/native/binding.js';
import { defaultOrtLibraryPath, defaultOrtLibraryPlaces, findOrtLibrary, initOrtRuntime } from '../../src/native/ort-library.js';
import { thrownMlrbError } from '../support/expect-mlrb-error.js';
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

  it("in a checkout, the default is onnxruntime-node's library: the local build has none beside it", () => {
    expect(loadedAddonPath()).toBe(addonLocation.addonCandidates()[0]);
    expect(defaultOrtLibraryPlaces().map((place) => place.description)).toEqual(['beside the addon', 'in onnxruntime-node', 'beside the prebuilt addon']);
    const onnxruntimeNode = addonLocation.onnxruntimeNodeLibrary();
    expect(onnxruntimeNode).not.toBeNull();
    expect(realpathSync(defaultOrtLibraryPath())).toBe(realpathSync(onnxruntimeNode ?? ''));
  });

  it('the first place whose library exists wins; places without one are passed over', () => {
    const root = makeTempDir('ort-places');
    const [first, second, third] = ['a', 'b', 'c'].map((name) => path.join(root, name, 'libonnxruntime.so.1'));
    for (const file of [second, third]) {
      mkdirSync(path.dirname(file ?? ''), { recursive: true });
      writeFileSync(file ?? '', '');
    }
    const places = [
      { description: 'beside the addon', file: first ?? null },
      { description: 'in onnxruntime-node', file: null },
      { description: 'beside the prebuilt addon', file: second ?? null },
      { description: 'elsewhere', file: third ?? null },
    ];
    expect(findOrtLibrary(places)).toBe(second);
  });

  it('EXPECTED FAILURE – no library in any place: ORT_LOAD names every place looked and how to name one', () => {
    const root = makeTempDir('ort-places');
    const places = [
      { description: 'beside the addon', file: path.join(root, 'prebuilds', 'libonnxruntime.so.1') },
      { description: 'in onnxruntime-node', file: null },
    ];
    const failure = thrownMlrbError(() => findOrtLibrary(places));
    expect(failure).toMatchObject({ code: 'ORT_LOAD', details: { looked: [places[0]?.file, null] } });
    const { message } = failure;
    expect(message).toContain(`beside the addon (${places[0]?.file}), in onnxruntime-node (not installed)`);
    expect(message).toMatch(/--ort-library FILE, the ortLibrary option or MLRB_ORT_LIBRARY=FILE/);
  });

  it("loads onnxruntime-node's library and reports its version", () => {
    const info = initOrtRuntime();
    expect(info.libraryPath).toBe(defaultOrtLibraryPath());
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
    process.env.MLRB_ORT_LIBRARY = defaultOrtLibraryPath();
    try {
      expect(initOrtRuntime().libraryPath).toBe(defaultOrtLibraryPath());
    } finally {
      delete process.env.MLRB_ORT_LIBRARY;
    }
  });
});
