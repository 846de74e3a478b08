/**
 * clang-format over the addon's C++ and CUDA sources (git's list of them under native/, styled by
 * native/.clang-format): `--check` fails on any file that is not formatted (`npm run format:check`), without it the
 * files are rewritten (`npm run format`). A missing clang-format is an error, not a skip: the gate would pass
 * without checking anything.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const NATIVE_SOURCES = ['*.cc', '*.cpp', '*.c', '*.h', '*.hpp', '*.cu', '*.cuh'].map((pattern) => `native/${pattern}`);

const check = process.argv.includes('--check');
const files = execFileSync('git', ['ls-files', '--', ...NATIVE_SOURCES], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const result = spawnSync('clang-format', [...(check ? ['--dry-run', '-Werror'] : ['-i']), '--style=file', ...files], { cwd: root, stdio: 'inherit' });
if (result.error !== undefined) {
  console.error(`clang-format could not run (${result.error.message}); install it (Debian: apt-get install clang-format)`);
  process.exitCode = 1;
} else {
  if (result.status === 0) console.log(`clang-format: ${files.length} native files ${check ? 'formatted' : 'rewritten'}`);
  process.exitCode = result.status ?? 1;
}
