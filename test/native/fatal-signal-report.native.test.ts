/**
 * A signal that kills node says nothing: the command just stops (what a GPU run of a 1B model showed). Once the
 * addon is loaded it writes one line naming the signal, and the process still dies by that same signal
 * (native/addon/fatal_signal_report.h); a fault that another handler resolves (V8 turning an out-of-bounds
 * WebAssembly access into a RuntimeError, as the score cache's SQLite would meet it) stays silent.
 * Each case runs in a child node: a plain script that loads the built addon the way the package does.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/shared-data.js';

// (module (memory 1) (func (export "f") (result i32) i32.const 70000 i32.load)): a load past the one 64 KiB page.
const OUT_OF_BOUNDS_WASM = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x05,
  0x01, 0x01, 0x66, 0x00, 0x00, 0x0a, 0x0b, 0x01, 0x09, 0x00, 0x41, 0xf0, 0xa2, 0x04, 0x28, 0x02, 0x00, 0x0b,
];

const LOAD_ADDON = `
const { existsSync } = require('node:fs');
const { addonCandidates } = require(${JSON.stringify(path.join(repoRoot, 'scripts', 'install', 'addon-location.cjs'))});
if (process.argv[1] === 'with-addon') require(addonCandidates().find((candidate) => existsSync(candidate)));
`;

function runChild(body: string, withAddon: boolean) {
  return spawnSync(process.execPath, ['-e', LOAD_ADDON + body, withAddon ? 'with-addon' : 'without-addon'], { encoding: 'utf8' });
}

describe('fatal signals after the addon is loaded', () => {
  it.each(['SIGSEGV', 'SIGBUS', 'SIGILL', 'SIGFPE', 'SIGABRT'] as const)('%s: one line on stderr, and the process still dies by it', (signal) => {
    const child = runChild(`process.kill(process.pid, '${signal}');`, true);
    expect(child.signal).toBe(signal);
    expect(child.stderr).toMatch(new RegExp(`^mlrb-eval: fatal: ${signal} \\(.+\\): native code .+ failed, and the process ends now\\.`));
    expect(child.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('without the addon the same death is silent (what the report is for)', () => {
    const child = runChild(`process.kill(process.pid, 'SIGSEGV');`, false);
    expect(child.signal).toBe('SIGSEGV');
    expect(child.stderr).toBe('');
  });

  it('abort() from native code (an uncaught C++ exception ends in std::terminate) is reported, and dies by SIGABRT', () => {
    const child = runChild('process.abort();', true);
    expect(child.signal).toBe('SIGABRT');
    expect(child.stderr).toContain('mlrb-eval: fatal: SIGABRT (abort');
  });

  it('a WebAssembly bounds fault, which V8 turns into a RuntimeError through the same SIGSEGV, is not reported', () => {
    const child = runChild(
      `const { f } = new WebAssembly.Instance(new WebAssembly.Module(Uint8Array.from(${JSON.stringify(OUT_OF_BOUNDS_WASM)}))).exports;
       try { f(); } catch (error) { console.log(error.constructor.name); }
       console.log('still running');`,
      true,
    );
    expect(child.status).toBe(0);
    expect(child.stdout.split('\n')).toEqual(['RuntimeError', 'still running', '']);
    expect(child.stderr).toBe('');
  });
});
