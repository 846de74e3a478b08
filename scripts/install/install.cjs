// npm's install hook. A consumer's install uses the prebuilt addon when it loads on this machine and compiles
// nothing; the source build (cmake-js over node-api-headers, so no Node headers are downloaded) is the fallback,
// and the only path in a checkout of this repository, where `npm ci` must build what the tests run.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { packageRoot, prebuiltPath } = require('./addon-location.cjs');

// The packages a source build needs, at the versions package.json pins for this repository's own build.
const BUILD_TOOLS = ['cmake-js', 'node-addon-api', 'node-api-headers', 'com.github.asus4.onnxruntime'];
const { devDependencies } = require(path.join(packageRoot, 'package.json'));
const pinned = (name) => `${name}@${devDependencies[name]}`;

function realpathOrSelf(file) {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

/** `npm ci` / `npm install` run at the root of this repository, rather than as someone's dependency. */
function isRepositoryInstall() {
  const prefix = process.env.npm_config_local_prefix;
  return prefix !== undefined && realpathOrSelf(prefix) === realpathOrSelf(packageRoot);
}

/** Loading it is the only check that counts: an older glibc or libstdc++ than the build machine's fails here. */
function prebuiltLoads(file) {
  if (!fs.existsSync(file)) return { ok: false, reason: `no prebuilt addon for ${process.platform}-${process.arch} (${path.relative(packageRoot, file)})` };
  try {
    require(file);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `the prebuilt ${path.relative(packageRoot, file)} does not load here: ${error.message}` };
  }
}

function missingBuildTools() {
  return BUILD_TOOLS.filter((name) => {
    try {
      require.resolve(`${name}/package.json`, { paths: [packageRoot] });
      return false;
    } catch {
      return true;
    }
  });
}

function buildFromSource(reason) {
  if (reason) console.error(`mlrb-eval: ${reason}; building the addon from source.`);
  const missing = missingBuildTools();
  if (missing.length > 0) {
    console.error(
      [
        `mlrb-eval: building from source needs ${missing.join(', ')} (npm packages, only for the build), CMake >= 3.19`,
        'and a C++20 compiler. Where the package ships no ONNX Runtime library for this platform, the addon loads the',
        `one in ${pinned('onnxruntime-node')} (or one named with --ort-library). Install them next to mlrb-eval and`,
        'build again:',
        `  ONNXRUNTIME_NODE_INSTALL=skip npm install --save-dev ${[...BUILD_TOOLS, 'onnxruntime-node'].map(pinned).join(' ')}`,
        '  npm rebuild mlrb-eval',
      ].join('\n'),
    );
    process.exit(1);
  }
  const cmakeJs = require.resolve('cmake-js/bin/cmake-js', { paths: [packageRoot] });
  const result = spawnSync(process.execPath, [cmakeJs, 'compile', '--out', 'build'], { cwd: packageRoot, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

if (isRepositoryInstall()) buildFromSource('');
else if (process.env.MLRB_EVAL_BUILD_FROM_SOURCE) buildFromSource('MLRB_EVAL_BUILD_FROM_SOURCE is set');
else {
  const prebuilt = prebuiltLoads(prebuiltPath());
  if (!prebuilt.ok) buildFromSource(prebuilt.reason);
}
