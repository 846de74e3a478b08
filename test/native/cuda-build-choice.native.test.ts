/**
 * When the build compiles the CUDA kernels (CMakeLists.txt, MLRB_CUDA): by default only where nvcc and an NVIDIA
 * GPU are both present, so nvcc on the PATH alone does not cost an `npm ci` the kernels' minutes; MLRB_CUDA=ON
 * wherever nvcc is; OFF never; anything else is refused. CMake is only configured here, nothing is compiled.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/shared-data.js';
import { FULL_TIER } from '../support/test-tier.js';

const hasCmake = spawnSync('cmake', ['--version']).status === 0;
// The same two signs CMakeLists.txt looks for.
const gpuPresent = (existsSync('/dev') && readdirSync('/dev').some((name) => /^nvidia\d+$/.test(name))) || spawnSync('nvidia-smi', ['-L']).status === 0;
const nvccPresent = spawnSync(process.env.CUDACXX || 'nvcc', ['--version']).status === 0;

/** CMake's configure output with MLRB_CUDA set to `mode` (unset when undefined). */
function configure(mode: string | undefined): { status: number | null; output: string } {
  const build = mkdtempSync(path.join(tmpdir(), 'mlrb-cmake-'));
  try {
    const env = { ...process.env };
    if (mode === undefined) delete env.MLRB_CUDA;
    else env.MLRB_CUDA = mode;
    const result = spawnSync('cmake', ['-S', repoRoot, '-B', build], { env, encoding: 'utf8', timeout: 300_000 });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(build, { recursive: true, force: true });
  }
}

describe.runIf(hasCmake)('MLRB_CUDA', () => {
  it.runIf(!gpuPresent)('by default, no GPU: no kernels, whether nvcc is on the PATH or not, saying how to have them', () => {
    const { status, output } = configure(undefined);
    expect(status).toBe(0);
    expect(output).toContain('mlrb-eval: building without CUDA kernels (no NVIDIA GPU on this machine; MLRB_CUDA=ON builds them anyway)');
  });

  it('OFF: no kernels', () => {
    const { status, output } = configure('OFF');
    expect(status).toBe(0);
    expect(output).toContain('mlrb-eval: building without CUDA kernels (MLRB_CUDA=OFF)');
  });

  it('BAD CALL – anything but AUTO, ON or OFF is refused', () => {
    const { status, output } = configure('maybe');
    expect(status).not.toBe(0);
    expect(output).toContain("MLRB_CUDA must be AUTO, ON or OFF, got 'maybe'");
  });

  // Configuring CUDA probes nvcc, a minute on 2 cores.
  it.runIf(FULL_TIER && nvccPresent)('ON: the kernels, with or without a GPU', () => {
    const { status, output } = configure('ON');
    expect(status).toBe(0);
    expect(output).toMatch(/mlrb-eval: CUDA kernels enabled \(.*nvcc\)/);
  });
});
