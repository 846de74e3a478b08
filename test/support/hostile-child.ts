/**
 * Runs library calls on hostile inputs in a child process (see run-hostile.ts): a FIFO that blocks a read or a
 * link to /dev/zero that grows memory would hang or kill the test worker itself if the guard regressed. Reads
 * a JSON array of operations from argv[2] and prints one JSON line: an outcome per operation.
 */
import { main } from '../../src/cli/main.js';
import { MlrbError } from '../../src/errors.js';
import { evaluate } from '../../src/run/evaluate.js';
import { readRegularFile, sha256OfRegularFile } from '../../src/io/regular-file.js';
import { readModelMetadata } from '../../src/model/model-metadata.js';
import { loadTokenizer } from '../../src/model/tokenizer.js';
import { loadSuite, type SuiteName } from '../../src/tasks/registry.js';
import type { HostileOperation, HostileOutcome } from './run-hostile.js';

async function perform(operation: HostileOperation): Promise<string> {
  switch (operation.op) {
    case 'readRegularFile':
      return `${readRegularFile(operation.file, operation.policy).length} bytes`;
    case 'sha256OfRegularFile':
      return sha256OfRegularFile(operation.file, operation.policy);
    case 'loadSuite': {
      const suite = await loadSuite(operation.name as SuiteName, operation.options);
      return `${suite.tasks.length} tasks`;
    }
    case 'readModelMetadata':
      return readModelMetadata(operation.dir).sources.join(',');
    case 'loadTokenizer':
      return loadTokenizer(operation.file).path;
    case 'evaluate':
      await evaluate(operation.options);
      return 'evaluated';
    case 'cli': {
      let stderr = '';
      const sink = { write: (chunk: string) => ((stderr += chunk), true) } as unknown as NodeJS.WritableStream;
      const code = await main(operation.args, { stdout: { write: () => true } as unknown as NodeJS.WritableStream, stderr: sink });
      // The exit code and stderr travel as the outcome's message, the way a user would see them.
      throw Object.assign(new Error(stderr), { exitCode: code });
    }
  }
}

const operations = JSON.parse(process.argv[2] ?? '[]') as HostileOperation[];
const outcomes: HostileOutcome[] = [];
for (const operation of operations) {
  const started = performance.now();
  try {
    const value = await perform(operation);
    outcomes.push({ ok: true, value, ms: performance.now() - started });
  } catch (error) {
    const exitCode = error instanceof Error && 'exitCode' in error && typeof error.exitCode === 'number' ? error.exitCode : undefined;
    outcomes.push({
      ok: false,
      ...(error instanceof MlrbError ? { code: error.code } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
      name: error instanceof Error ? error.name : typeof error,
      message: error instanceof Error ? error.message : String(error),
      ms: performance.now() - started,
    });
  }
}
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
