/** Child process: writes the synthetic model with the project's fixture writer. argv: outDir, dims JSON. */
import { writeTinyCausalLm } from '../../test/support/model-builders/tiny-causal-lm.js';

const [outDir, dimsJson] = process.argv.slice(2);
if (!outDir || !dimsJson) throw new Error('usage: generate-synthetic.ts OUT_DIR DIMS_JSON');
const started = performance.now();
writeTinyCausalLm(outDir, { ...(JSON.parse(dimsJson) as object), pastConvention: 'optimum', externalData: true, withTokenizer: false });
process.stderr.write(`bench: synthetic model written in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
