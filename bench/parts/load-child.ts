/**
 * Child process of the real-peer section: mlrb-eval's load in a fresh process, as the CLI pays it
 * (config and tokenizer, the ONNX parse, graph rewrites such as LM-head slicing and fusion, the ORT
 * session). argv: modelPath. Prints one JSON line { seconds }.
 */
import { loadModel } from '../../src/model/onnx-model.js';

const [modelPath] = process.argv.slice(2);
if (!modelPath) throw new Error('usage: load-child.ts MODEL');
const started = performance.now();
const model = await loadModel({ model: modelPath });
const seconds = (performance.now() - started) / 1000;
model.dispose();
process.stdout.write(`${JSON.stringify({ seconds })}\n`);
