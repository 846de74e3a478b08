// Where the addon lives, for the runtime loader (src/native/binding.ts), the install hook and the prebuild
// script alike, so the three never disagree. CommonJS so the install hook runs before any TypeScript is built.
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

module.exports = { packageRoot, localBuild, prebuiltPath, addonCandidates };
