// Builds the addon from source into build/Release, which the loader prefers over the prebuilt: for a platform the
// package has no prebuilt for, or one whose prebuilt does not load (an older glibc or libstdc++), run
//   node node_modules/mlrb-eval/scripts/install/build-from-source.cjs
// It is not an npm install hook: npm 11.16+ lists every dependency with one for review and npm 12 blocks them by
// default, while a Linux x64 install needs none (the loader finds the prebuilt). A checkout builds with
// `npm run build:native` (run by `npm ci`, through prepare). cmake-js over node-api-headers: no Node headers are
// downloaded.
'use strict';
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { packageRoot } = require('./addon-location.cjs');

// The packages a source build needs, at the versions package.json pins for this repository's own build.
const BUILD_TOOLS = ['cmake-js', 'node-addon-api', 'node-api-headers', 'com.github.asus4.onnxruntime'];
const { devDependencies } = require(path.join(packageRoot, 'package.json'));
const pinned = (name) => `${name}@${devDependencies[name]}`;

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

const missing = missingBuildTools();
if (missing.length > 0) {
  console.error(
    [
      `mlrb-eval: building from source needs ${missing.join(', ')} (npm packages, only for the build), CMake >= 3.19`,
      'and a C++20 compiler. Where the package ships no ONNX Runtime library for this platform, the addon loads the',
      `one in ${pinned('onnxruntime-node')} (or one named with --ort-library). Install them next to mlrb-eval and`,
      'build again:',
      `  ONNXRUNTIME_NODE_INSTALL=skip npm install --save-dev ${[...BUILD_TOOLS, 'onnxruntime-node'].map(pinned).join(' ')}`,
      `  node ${path.relative(process.cwd(), __filename)}`,
    ].join('\n'),
  );
  process.exit(1);
}
const cmakeJs = require.resolve('cmake-js/bin/cmake-js', { paths: [packageRoot] });
const result = spawnSync(process.execPath, [cmakeJs, 'compile', '--out', 'build'], { cwd: packageRoot, stdio: 'inherit' });
process.exit(result.status ?? 1);
