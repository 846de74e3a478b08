/** Tokenization of MMLU requests: cold (tokenizer), and warm (the disk cache a second run reads). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tokenizeWithCache } from '../../src/cache/cached-tokenize.js';
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadSuite } from '../../src/tasks/registry.js';
import type { BenchModel } from '../models/bench-models.js';
import { isMultipleChoice } from '../../src/tasks/types.js';

export interface TokenizeCacheResult {
  readonly model: string;
  readonly requests: number;
  readonly coldSeconds: number;
  readonly warmSeconds: number;
  readonly identical: boolean;
}

export async function runTokenizeCacheBenchmark(benchModel: BenchModel, mmluDir: string, perSubject: number): Promise<TokenizeCacheResult> {
  const suite = await loadSuite('mmlu', { dataDir: mmluDir, limit: perSubject });
  const requests = suite.tasks.filter(isMultipleChoice).flatMap((task) => buildTaskRequests(task));
  const model = await loadModel({ model: benchModel.modelPath });
  const cacheDir = mkdtempSync(path.join(tmpdir(), 'mlrb-token-cache-'));
  try {
    const cold = tokenizeWithCache(model, requests, { cacheDir });
    const warm = tokenizeWithCache(model, requests, { cacheDir });
    if (!warm.cacheHit) throw new Error('the second tokenization missed the cache');
    return {
      model: benchModel.name,
      requests: requests.length,
      coldSeconds: cold.tokenizeMs / 1000,
      warmSeconds: warm.tokenizeMs / 1000,
      identical: JSON.stringify(cold.tokenized) === JSON.stringify(warm.tokenized),
    };
  } finally {
    model.dispose();
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
