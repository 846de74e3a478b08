// Where the addon and the ONNX Runtime library it loads live, for the runtime loader (src/native/binding.ts,
// src/native/ort-library.ts), the install hook and the prebuild script alike, so they never disagree.
// CommonJS so the install hook runs before any TypeScript is built.
'use strict';
const path = require('node:path');

const packageRoot = path.resolve(__dirname, '..', '..');

/** A local build (cmake-js or node-gyp): `npm run build:native` in a checkout, or the install fallback. */
const localBuild = path.join(packageRoot, 'build', 'Release', 'mlrb_native.node');

/** 'glibc' or 'musl' on Linux (a glibc build does not load under musl), '' elsewhere. */
function linuxLibc() {
  if (process.platform !== 'linux') return '';
  const header = process.report?.getReport().header;
  return header && header.glibcVersionRuntime ? 'glibc' : 'musl';
}

/**
 * The prebuilt addon for this machine, in prebuildify's layout and naming (prebuilds/<platform>-<arch>/
 * node.napi[.<libc>].node), so node-gyp-build and other prebuild tooling read the package the same way.
 */
function prebuiltPath() {
  const libc = linuxLibc();
  const file = ['node', 'napi', ...(libc ? [libc] : []), 'node'].join('.');
  return path.join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`, file);
}

/** In load order: a local build wins, so a rebuild (CUDA kernels, a patch) takes effect over the prebuilt. */
function addonCandidates() {
  return [localBuild, prebuiltPath()];
}

/** ONNX Runtime's library as onnxruntime-node names it, and as the package ships it beside its prebuilt addon. */
const ortLibraryFile = process.platform === 'darwin' ? 'libonnxruntime.1.dylib' : 'libonnxruntime.so.1';

/** The ORT library beside an addon: where `npm pack` puts onnxruntime-node's, next to the prebuilt. */
function ortLibraryBeside(addonPath) {
  return path.join(path.dirname(addonPath), ortLibraryFile);
}

/** The installed onnxruntime-node's folder, or null: a consumer's install has none (it is a dev dependency). */
function onnxruntimeNodeDir() {
  try {
    return path.dirname(require.resolve('onnxruntime-node/package.json', { paths: [packageRoot] }));
  } catch {
    return null;
  }
}

/** onnxruntime-node's ORT library for this machine, or null where the package is not installed. */
function onnxruntimeNodeLibrary() {
  const dir = onnxruntimeNodeDir();
  return dir === null ? null : path.join(dir, 'bin', 'napi-v6', process.platform, process.arch, ortLibraryFile);
}

module.exports = { packageRoot, localBuild, prebuiltPath, addonCandidates, ortLibraryFile, ortLibraryBeside, onnxruntimeNodeDir, onnxruntimeNodeLibrary };
