/**
 * Prompts of different lengths decoded together on the fused-attention KV cache (graphs exported without past;
 * native/ort/generation_session.h), against the same prompts one per batch: what a batch of all-different lengths
 * came to before the cache took mixed lengths (it took one length per batch, and real gsm8k contexts rarely share
 * one). The prompts are the gsm8k fixture's 11 questions (test and train) as 0-shot contexts, "Question: …\nAnswer:",
 * encoded by the model's tokenizer; greedy, lm-eval's 256 new tokens and its stop string "Question:". The ids of
 * both runs must be equal, prompt for prompt. Medians of --repeats runs, in this process, on one loaded model.
 *
 *   /work/pyenv/bin/python scripts/bench/build_peer_models.py --only stories260K    # <models>/stories260K/model.onnx
 *   npx tsx bench/mixed-length-generation.ts [--models DIR] [--repeats 3] [--batch-size 8]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decodeCacheOf } from '../src/generate/decode-cache.js';
import { createTextGenerator } from '../src/generate/text-generator.js';
import { loadModel } from '../src/model/onnx-model.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = path.join(REPO, 'test', 'fixtures', 'tasks', 'gsm8k', 'release');

const { values } = parseArgs({
  options: {
    models: { type: 'string', default: '/work/models' },
    repeats: { type: 'string', default: '3' },
    'batch-size': { type: 'string', default: '8' },
  },
});
const repeats = Number(values.repeats);
const batchSize = Number(values['batch-size']);

const questions = ['test.jsonl', 'train.jsonl'].flatMap((file) =>
  readFileSync(path.join(FIXTURE, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { question: string }).question),
);
const model = await loadModel({ model: path.join(values.models, 'stories260K', 'model.onnx'), onWarning: () => {} });
try {
  if (decodeCacheOf(model) !== 'fused-attention') throw new Error(`expected the fused-attention cache, got ${decodeCacheOf(model)}`);
  const tokenizer = model.requireTokenizer();
  const prompts = questions.map((question) => tokenizer.encodeWithSpecialTokens(`Question: ${question}\nAnswer:`));
  const settings = { maxNewTokens: 256, stopStrings: ['Question:'] };
  const load = [loadavg()[0]!];
  const timed = async (size: number) => {
    const seconds: number[] = [];
    let ids: number[][] = [];
    for (let run = 0; run < repeats; run += 1) {
      const started = performance.now();
      const generations = await createTextGenerator(model, { batchSize: size }).generate(prompts, settings);
      seconds.push((performance.now() - started) / 1000);
      ids = generations.map((generation) => [...generation.tokenIds]);
    }
    seconds.sort((a, b) => a - b);
    return { median: seconds[Math.floor(seconds.length / 2)]!, ids, tokens: ids.reduce((sum, run) => sum + run.length, 0) };
  };
  const alone = await timed(1);
  const together = await timed(batchSize);
  load.push(loadavg()[0]!);
  const equal = JSON.stringify(alone.ids) === JSON.stringify(together.ids);
  const lengths = prompts.map((prompt) => prompt.length).sort((a, b) => a - b);
  process.stdout.write(
    `${prompts.length} prompts of ${new Set(lengths).size} lengths (${lengths.join(', ')} tokens), ${together.tokens} new tokens in all; ` +
      `medians of ${repeats}; load average ${load.map((value) => value.toFixed(1)).join(' → ')}\n\n` +
      '| batches | wall s | tokens/s | ids equal |\n|---|---:|---:|---|\n' +
      `| one prompt per batch (before: one length per batch) | ${alone.median.toFixed(2)} | ${(alone.tokens / alone.median).toFixed(0)} | — |\n` +
      `| up to ${batchSize} prompts of mixed lengths per batch | ${together.median.toFixed(2)} | ${(together.tokens / together.median).toFixed(0)} | ${equal ? 'all' : 'NO'} |\n`,
  );
} finally {
  model.dispose();
}
