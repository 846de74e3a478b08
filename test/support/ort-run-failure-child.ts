/**
 * Runs in a child process, so the test can read what the native side printed to stderr: writes a graph whose
 * Reshape ONNX Runtime refuses only when it runs (hostile-mutants.ts), scores it, and prints the error as one
 * JSON line `{code, message}`. Usage: ort-run-failure-child.ts FOLDER.
 */
import { isMlrbError } from '../../src/errors.js';
import { scoreModelInputs } from '../../src/eval/score-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { writeRepeatMergeMutant } from './hostile-mutants.js';
import { randomModelInputs } from './random-requests.js';

const model = await loadModel({ model: writeRepeatMergeMutant(process.argv[2] ?? '', [0, 4, 3, 8]), cpuFusion: false, threads: 1 });
try {
  await scoreModelInputs(model, randomModelInputs(4, 64, 12, 9, 4));
  process.stdout.write(`${JSON.stringify({ code: 'none', message: 'scored' })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ code: isMlrbError(error) ? error.code : 'INTERNAL', message: (error as Error).message })}\n`);
} finally {
  model.dispose();
}
