/**
 * Imported first by a test file to make the fused CPU attention round as MLAS's FMA3/AVX2 kernels do
 * (native/core/cpu_features.h). ES modules run in import order, so this sets MLRB_CPU_PATH before any other
 * module can load the addon; the addon reads it once, when it first needs the path.
 */
process.env.MLRB_CPU_PATH = 'avx2';
