// `npm run build:prebuilt` (run by prepack): builds the addon exactly as `npm run build:native` does (the build
// the tests run, with CUDA kernels where nvcc exists) and copies it into the package's prebuilt layout.
// cmake-js rather than prebuildify: prebuildify drives node-gyp, which downloads Node's headers (or needs a
// nodedir); cmake-js takes them from the node-api-headers package, offline.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { packageRoot, localBuild, prebuiltPath } = require('../install/addon-location.cjs');

const cmakeJs = require.resolve('cmake-js/bin/cmake-js', { paths: [packageRoot] });
const build = spawnSync(process.execPath, [cmakeJs, 'compile', '--out', 'build'], { cwd: packageRoot, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const target = prebuiltPath();
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.copyFileSync(localBuild, target);
// Symbols only a debugger reads, as prebuildify strips them (a fifth of the file); skipped where strip is absent.
spawnSync('strip', ['--strip-unneeded', target], { stdio: 'inherit' });
const { cudaKernels } = require(target).buildInfo();
const size = (fs.statSync(target).size / 2 ** 20).toFixed(1);
console.log(`mlrb-eval: prebuilt ${path.relative(packageRoot, target)} (${size} MiB, CUDA kernels: ${cudaKernels ? 'yes' : 'no'})`);
