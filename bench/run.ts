/**
 * `npm run bench`: every benchmark suite in one run, so ratios compare numbers taken on the same machine
 * at the same time. Needs ../shared (stories260K, the GPT-2 tokenizer, MMLU, BLiMP); pass --shared DIR to
 * point elsewhere. Sections print as markdown as they finish; all figures also go to --json FILE.
 * --quick shrinks every workload (a smoke run of the whole harness, not a measurement).
 * The real-peer section (lm-eval's HF backend, whole commands) runs when its models exist in --models DIR
 * (default /work/models or $MLRB_BENCH_MODELS; scripts/bench/build_peer_models.py writes them) and times
 * lm-eval when MLRB_BENCH_PYTHON names a Python with lm_eval and torch; otherwise it says what it skipped.
 * --only real-peer runs that section alone.
 * The generation section (greedy decode tokens/s against transformers.js generate and hand-written
 * onnxruntime-node loops, with and without KV cache) runs on the same --models DIR once
 * scripts/bench/build_generation_models.py has added the KV exports; --only generation runs it alone
 * (it needs no ../shared).
 * The encoder-decoder section (a Flan-T5-small-shaped model: MMLU/BLiMP against lm-eval's seq2seq HF backend,
 * decode tokens/s against transformers.js) runs on --models DIR once scripts/bench/build_seq2seq_models.py has
 * written it; --only encoder-decoder runs it alone.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadBinding } from '../src/native/binding.js';
import { stories260K, syntheticGpt2Small, type BenchModel } from './models/bench-models.js';
import { runMemoryBenchmarks } from './parts/memory.bench-part.js';
import { runOpProfile } from './parts/op-profile.bench-part.js';
import { runPrefixReuseBenchmark } from './parts/prefix-reuse.bench-part.js';
import { runGenerationBenchmark } from './parts/generation.bench-part.js';
import { runRealPeerBenchmark } from './parts/real-peer.bench-part.js';
import { runSeq2SeqBenchmark } from './parts/seq2seq.bench-part.js';
import { printSeq2Seq } from './seq2seq-report.js';
import { DEFAULT_PEER_MODELS_DIR } from './models/peer-models.js';
import { runRooflineBenchmarks } from './parts/roofline.bench-part.js';
import { runTokenizeCacheBenchmark } from './parts/tokenize-cache.bench-part.js';
import { createOurDecoder } from './peers/ours-generate.js';
import { standardWorkloads } from './parts/workloads.js';
import { runInspectBenchmarks } from './inspect.bench-part.js';
import {
  printGeneration,
  printInspect,
  printMemory,
  printOpProfile,
  printPrefixReuse,
  printRealPeer,
  printRoofline,
  printThroughput,
  printTokenizeCache,
  printTargets,
  type Figures,
} from './report.js';
import { runScoringBenchmarks } from './scoring.bench-part.js';

const { values } = parseArgs({
  options: {
    shared: { type: 'string', default: '../shared' },
    threads: { type: 'string' },
    quick: { type: 'boolean', default: false },
    json: { type: 'string', default: path.join(tmpdir(), 'mlrb-bench-last.json') },
    models: { type: 'string', default: DEFAULT_PEER_MODELS_DIR },
    only: { type: 'string' },
  },
});
const SECTIONS = ['real-peer', 'generation', 'encoder-decoder'];
if (values.only !== undefined && !SECTIONS.includes(values.only)) {
  process.stderr.write(`bench: --only takes ${SECTIONS.join(' or ')}, got ${values.only}\n`);
  process.exit(2);
}
const threads = values.threads ? Number(values.threads) : undefined;
const quick = values.quick;
const figures: Figures = {};
const save = (): void => writeFileSync(values.json, JSON.stringify(figures, null, 2));
const runGeneration = async (): Promise<void> => {
  figures.generation = await runGenerationBenchmark({ modelsDir: path.resolve(values.models), quick, threads, ours: createOurDecoder });
  printGeneration(figures.generation);
  save();
};
if (values.only === 'generation') {
  process.stdout.write(
    `# mlrb-eval benchmarks, generation — ${new Date().toISOString()} — node ${process.version}${quick ? ' — QUICK (not a measurement)' : ''}\n`,
  );
  await runGeneration();
  process.stdout.write(`\nfigures written to ${values.json}\n`);
  process.exit(0);
}
const shared = path.resolve(values.shared);
if (!existsSync(path.join(shared, 'models', 'stories260K', 'model.onnx'))) {
  process.stderr.write(`bench: ${shared}/models/stories260K/model.onnx not found; pass --shared DIR\n`);
  process.exit(2);
}
const dirs = { mmluDir: path.join(shared, 'data', 'mmlu'), blimpDir: path.join(shared, 'data', 'blimp') };

process.stdout.write(`# mlrb-eval benchmarks — ${new Date().toISOString()} — node ${process.version}${quick ? ' — QUICK (not a measurement)' : ''}\n`);
const cpu = loadBinding().buildInfo().cpu;
process.stdout.write(
  `CPU: ${cpu.model || 'unknown'}; fused attention rounds as MLAS's ${cpu.kernelPath} kernels${cpu.forced ? ' (MLRB_CPU_PATH)' : ''}, MLAS here runs ${cpu.mlasPath}\n`,
);

const runRealPeer = async (): Promise<void> => {
  figures.realPeer = await runRealPeerBenchmark({ modelsDir: path.resolve(values.models), dirs, quick, threads });
  printRealPeer(figures.realPeer);
  save();
};
const runEncoderDecoder = async (): Promise<void> => {
  figures.encoderDecoder = await runSeq2SeqBenchmark({ modelsDir: path.resolve(values.models), dirs, quick, threads });
  printSeq2Seq(figures.encoderDecoder);
  save();
};
if (values.only === 'encoder-decoder') {
  await runEncoderDecoder();
  printTargets(figures);
  save();
  process.stdout.write(`\nfigures written to ${values.json}\n`);
  process.exit(0);
}
if (values.only === 'real-peer') {
  await runRealPeer();
  printTargets(figures);
  save();
  process.stdout.write(`\nfigures written to ${values.json}\n`);
  process.exit(0);
}

const stories = stories260K(shared);
const gpt2 = syntheticGpt2Small(shared);
const throughputPlans: [BenchModel, { mmluPerSubject: number; blimpPerParadigm: number }, number][] = [
  [stories, quick ? { mmluPerSubject: 1, blimpPerParadigm: 1 } : { mmluPerSubject: 2, blimpPerParadigm: 6 }, quick ? 1 : 5],
  [gpt2, { mmluPerSubject: 1, blimpPerParadigm: 1 }, 1],
];
figures.throughput = [];
for (const [model, sizes, iterations] of throughputPlans) {
  if (model === gpt2) {
    // Measured right before the model it bounds, so both see the same machine load.
    figures.roofline = await runRooflineBenchmarks(threads);
    printRoofline(figures.roofline);
    save();
  }
  const workloads = await standardWorkloads(model, dirs, sizes);
  const used =
    quick && model === gpt2
      ? workloads.map((workload) => ({ ...workload, name: `${workload.name} [first 24 requests]`, inputs: workload.inputs.slice(0, 24) }))
      : workloads;
  const rows = await runScoringBenchmarks({ model, workloads: used, iterations, peerBatchSize: 8, ...(threads ? { threads } : {}) });
  figures.throughput.push(...rows);
  printThroughput(rows);
  save();
  if (model === gpt2) {
    const memoryInputs = used[0]?.inputs ?? [];
    figures.memory = {
      weightBytes: model.weightBytes,
      rows: runMemoryBenchmarks(model.modelPath, memoryInputs, [
        { sliceLmHead: true, batchSize: 'auto' },
        { sliceLmHead: false, batchSize: 'auto' },
        { sliceLmHead: true, batchSize: 8 },
        { sliceLmHead: false, batchSize: 8 },
      ]),
    };
    printMemory(figures.memory, used[0]?.name ?? '');
    figures.opProfile = await runOpProfile(model.modelPath, 4, 128, model.dims);
    printOpProfile(figures.opProfile, `${model.name}, 4 rows × 128 tokens`);
    save();
  }
}

figures.prefixReuse = await runPrefixReuseBenchmark(gpt2, dirs.mmluDir, quick ? 2 : 4, quick ? 2 : 20, threads);
printPrefixReuse(figures.prefixReuse);
save();

figures.tokenizeCache = [];
for (const model of [gpt2, stories]) figures.tokenizeCache.push(await runTokenizeCacheBenchmark(model, dirs.mmluDir, quick ? 2 : 20));
printTokenizeCache(figures.tokenizeCache);
save();

// Edge checks: inspect time on a generated multi-GB external-data model and the zero scan's GB/s.
figures.inspect = await runInspectBenchmarks(quick ? { targetBytes: 256e6 } : {});
printInspect(figures.inspect);
save();

await runRealPeer();
await runGeneration();
await runEncoderDecoder();

printTargets(figures);
save();
process.stdout.write(`\nfigures written to ${values.json}\n`);
