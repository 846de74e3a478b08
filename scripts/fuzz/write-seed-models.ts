/**
 * Writes the fuzz corpus's generated seeds (native/fuzz/corpus): small graphs in the shapes the rewrites act on,
 * so mutations start from inputs that reach deep into CPU fusion, LM-head slicing and last-block pruning.
 * Exporters' graphs join them from test/fixtures (native/fuzz/run.sh lists those folders).
 *   npx tsx scripts/fuzz/write-seed-models.ts
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTinyCausalLm } from '../../test/support/model-builders/tiny-causal-lm.js';

const corpus = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../native/fuzz/corpus');
const work = mkdtempSync(path.join(tmpdir(), 'mlrb-fuzz-seeds-'));
const small = { vocabSize: 32, hiddenSize: 8, numHeads: 2, mlpSize: 16, numLayers: 2, maxPositions: 16, withTokenizer: false } as const;
const seeds = {
  'tiny-lm.onnx': small,
  'tiny-lm-rotary.onnx': { ...small, rotary: true },
  'tiny-lm-past.onnx': { ...small, pastConvention: 'optimum' },
} as const;
try {
  for (const [name, options] of Object.entries(seeds)) {
    const { modelPath } = writeTinyCausalLm(path.join(work, name), options);
    copyFileSync(modelPath, path.join(corpus, name));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
