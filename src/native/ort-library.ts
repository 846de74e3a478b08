/**
 * Finds the ONNX Runtime shared library the native core loads. A library the user names (the `ortLibrary`
 * option, `--ort-library`, `MLRB_ORT_LIBRARY`) is used as given; otherwise the first that exists of:
 *   1. the one beside the addon that loaded: an installed package's prebuilt ships ORT's library there (`npm pack`
 *      copies onnxruntime-node's), so a consumer installs no onnxruntime-node and its 288 MB of every platform's
 *      libraries;
 *   2. onnxruntime-node's, a dev dependency of a checkout (the same pinned release). It comes before 3 because a
 *      checkout's tests also load onnxruntime-node's library through its JS binding (the reference path), and a
 *      second copy of ORT from another folder would be a second ORT in the same process;
 *   3. the one beside the prebuilt, when a local build loaded instead (a consumer's source build on Linux x64).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { addonLocation, loadBinding, loadedAddonPath, type RuntimeInfo } from './binding.js';

export const ORT_LIBRARY_ENV = 'MLRB_ORT_LIBRARY';

/** A place the default library is looked for; `file` is null where the place itself is absent. */
export interface OrtLibraryPlace {
  /** What the place is, for the error that lists every place looked. */
  readonly description: string;
  readonly file: string | null;
}

/** The places the default library is looked for, in order (see the file comment). */
export function defaultOrtLibraryPlaces(): OrtLibraryPlace[] {
  const addonPath = loadedAddonPath();
  const prebuiltPath = addonLocation.prebuiltPath();
  const places: OrtLibraryPlace[] = [
    { description: 'beside the addon', file: addonLocation.ortLibraryBeside(addonPath) },
    { description: 'in onnxruntime-node', file: addonLocation.onnxruntimeNodeLibrary() },
  ];
  if (prebuiltPath !== addonPath) places.push({ description: 'beside the prebuilt addon', file: addonLocation.ortLibraryBeside(prebuiltPath) });
  return places;
}

/** The first place's library that exists; ORT_LOAD naming every place looked when none does. */
export function findOrtLibrary(places: readonly OrtLibraryPlace[]): string {
  const found = places.find((place) => place.file !== null && existsSync(place.file));
  if (found?.file) return found.file;
  const looked = places.map((place) => `${place.description} (${place.file ?? 'not installed'})`);
  throw new MlrbError(
    'ORT_LOAD',
    `no ONNX Runtime library found; looked ${looked.join(', ')}. Name one with --ort-library FILE, the ortLibrary ` +
      `option or ${ORT_LIBRARY_ENV}=FILE (README "Choosing the ONNX Runtime library")`,
    { looked: places.map((place) => place.file) },
  );
}

/** The library used when none is named. */
export function defaultOrtLibraryPath(): string {
  return findOrtLibrary(defaultOrtLibraryPlaces());
}

export function resolveOrtLibraryPath(explicit?: string): string {
  const chosen = explicit ?? process.env[ORT_LIBRARY_ENV];
  if (chosen === undefined) return defaultOrtLibraryPath();
  if (!existsSync(chosen)) {
    throw new MlrbError('ORT_LOAD', `the ONNX Runtime library ${chosen} does not exist`, { libraryPath: chosen });
  }
  return path.resolve(chosen);
}

/** Loads ORT into the addon (idempotent for the same path) and reports what was loaded. */
export function initOrtRuntime(explicit?: string): RuntimeInfo {
  return loadBinding().initRuntime(resolveOrtLibraryPath(explicit));
}
