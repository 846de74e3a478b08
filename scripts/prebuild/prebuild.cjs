// `npm run build:prebuilt` (run by prepack): builds the addon as `npm run build:native` does, but with the CUDA
// kernels wherever nvcc exists (MLRB_CUDA=ON: the package's users have GPUs the packing machine may lack; an
// MLRB_CUDA the packer set wins), copies it into the package's prebuilt layout, and puts
// ONNX Runtime's library beside it: the pinned onnxruntime-node's, for this platform only, so a consumer installs
// neither onnxruntime-node nor its libraries for every other platform (288 MB against 45 MB).
// cmake-js rather than prebuildify: prebuildify drives node-gyp, which downloads Node's headers (or needs a
// nodedir); cmake-js takes them from the node-api-headers package, offline.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { packageRoot, localBuild, prebuiltPath, ortLibraryBeside, onnxruntimeNodeDir, onnxruntimeNodeLibrary } = require('../install/addon-location.cjs');

function fail(message) {
  console.error(`mlrb-eval prebuild: ${message}`);
  process.exit(1);
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const mebibytes = (file) => (fs.statSync(file).size / 2 ** 20).toFixed(1);

// The one place the ORT version is pinned; the library copied, its licence texts and what it reports must agree.
const pinnedOrt = readJson(path.join(packageRoot, 'package.json')).devDependencies['onnxruntime-node'];
const ortLibrary = onnxruntimeNodeLibrary();
if (ortLibrary === null || !fs.existsSync(ortLibrary)) fail(`onnxruntime-node's ${ortLibrary ?? 'package'} is missing; run npm ci first`);
const installedOrt = readJson(path.join(onnxruntimeNodeDir(), 'package.json')).version;
const licenceDir = path.join(packageRoot, 'third_party', 'onnxruntime');
const licenceVersion = fs.readFileSync(path.join(licenceDir, 'VERSION'), 'utf8').trim();
if (installedOrt !== pinnedOrt || licenceVersion !== pinnedOrt) {
  fail(
    `ORT versions disagree: package.json pins ${pinnedOrt}, onnxruntime-node ${installedOrt} is installed, ` +
      `third_party/onnxruntime holds the licence texts of ${licenceVersion}`,
  );
}

/** Whether a CUDA compiler answers: the one CUDACXX names, else nvcc on the PATH (as CMake looks for it). */
function cudaCompilerFound() {
  return spawnSync(process.env.CUDACXX || 'nvcc', ['--version'], { stdio: 'ignore' }).status === 0;
}

const cudaMode = process.env.MLRB_CUDA || (cudaCompilerFound() ? 'ON' : 'OFF');
const cmakeJs = require.resolve('cmake-js/bin/cmake-js', { paths: [packageRoot] });
const build = spawnSync(process.execPath, [cmakeJs, 'compile', '--out', 'build'], {
  cwd: packageRoot,
  stdio: 'inherit',
  env: { ...process.env, MLRB_CUDA: cudaMode },
});
if (build.status !== 0) process.exit(build.status ?? 1);

const target = prebuiltPath();
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.copyFileSync(localBuild, target);
// Symbols only a debugger reads, as prebuildify strips them (a fifth of the file); skipped where strip is absent.
spawnSync('strip', ['--strip-unneeded', target], { stdio: 'inherit' });
const shippedOrt = ortLibraryBeside(target);
fs.copyFileSync(ortLibrary, shippedOrt);

// Load the pair as a consumer will, from the package's folder, before it is packed.
const addon = require(target);
const runtime = addon.initRuntime(shippedOrt);
if (runtime.version !== pinnedOrt) fail(`${shippedOrt} reports ONNX Runtime ${runtime.version}, not the pinned ${pinnedOrt}`);
const { cudaKernels } = addon.buildInfo();
console.log(`mlrb-eval: prebuilt ${path.relative(packageRoot, target)} (${mebibytes(target)} MiB, CUDA kernels: ${cudaKernels ? 'yes' : 'no'})`);
console.log(`mlrb-eval: beside it ${path.relative(packageRoot, shippedOrt)} (ONNX Runtime ${runtime.version}, ${mebibytes(shippedOrt)} MiB)`);
