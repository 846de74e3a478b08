/**
 * Child-process half of the MLRB_CPU_PATH checks (the addon reads the variable once per process): prints
 * what buildInfo() and loadSession() do under the environment it was started with, as one JSON line.
 */
import { loadBinding } from '../../src/native/binding.js';

const outcome = (call: () => unknown): { error: string | null; message: string } => {
  try {
    call();
    return { error: null, message: '' };
  } catch (error) {
    return error instanceof Error ? { error: error.name, message: error.message } : { error: 'unknown', message: String(error) };
  }
};

const binding = loadBinding();
process.stdout.write(
  `${JSON.stringify({
    buildInfo: outcome(() => binding.buildInfo()),
    // Never settles into a session: the path check comes first, and the file does not exist.
    loadSession: outcome(() => void binding.loadSession('/nonexistent/model.onnx', {}).catch(() => undefined)),
  })}\n`,
);
