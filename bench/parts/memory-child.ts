/**
 * Child process of the memory benchmark: loads a model, resets the kernel's peak-RSS counter (VmHWM) so
 * that load-time peaks are reported apart, scores a workload and prints one JSON line with both peaks.
 * argv: modelPath, inputs JSON file, options JSON ({ sliceLmHead, batchSize }).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadModel } from '../../src/model/onnx-model.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import type { ModelInput } from '../../src/engine/model-input.js';

const statusKb = (field: string): number => {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
};

const [modelPath, inputsFile, optionsJson] = process.argv.slice(2);
if (!modelPath || !inputsFile || !optionsJson) throw new Error('usage: memory-child.ts MODEL INPUTS_JSON OPTIONS_JSON');
const options = JSON.parse(optionsJson) as { sliceLmHead: boolean; batchSize: number | 'auto' };
const inputs = JSON.parse(readFileSync(inputsFile, 'utf8')) as ModelInput[];
const model = await loadModel({ model: modelPath, sliceLmHead: options.sliceLmHead });
const loadPeakKb = statusKb('VmHWM');
const afterLoadKb = statusKb('VmRSS');
writeFileSync('/proc/self/clear_refs', '5'); // resets VmHWM to the current RSS (Linux ≥ 4.0)
const started = performance.now();
const { stats } = await scoreModelInputs(model, inputs, { batchSize: options.batchSize });
const seconds = (performance.now() - started) / 1000;
process.stdout.write(
  `${JSON.stringify({ loadPeakKb, afterLoadKb, scoringPeakKb: statusKb('VmHWM'), seconds, logitRows: stats.logitRows, paddedTokens: stats.paddedTokens, batches: stats.batches })}\n`,
);
model.dispose();
