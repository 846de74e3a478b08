/**
 * Writes the float32 tiny causal LM that scripts/hostile/quantize_tiny_lm.py quantizes into the int8
 * fixtures of test/fixtures/hostile/ (see make-quantized-fixtures.sh). Usage: tsx write-float-tiny-lm.ts DIR
 */
import { writeTinyCausalLm } from '../../test/support/model-builders/tiny-causal-lm.js';

const directory = process.argv[2];
if (directory === undefined) throw new TypeError('usage: tsx scripts/hostile/write-float-tiny-lm.ts DIR');
// Seed and dimensions are the fixture's identity: test/native/hostile-load.native.test.ts relies on its vocabulary of 64.
const lm = writeTinyCausalLm(directory, { seed: 5, withTokenizer: false });
process.stdout.write(`${lm.modelPath}\n`);
