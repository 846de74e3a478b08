/**
 * The models the benchmarks run, laid out so that every scorer can load them: mlrb-eval and the naive
 * loop read `<dir>/onnx/model.onnx`, transformers.js reads `<dir>` (config.json, tokenizer, onnx/).
 *
 * The GPT-2-small-sized synthetic model is generated on first use into os.tmpdir() by the project's own
 * fixture writer (deterministic weights, external data like real large exports) in a child process, so
 * the ~3 GB the generator needs never inflates the benchmark process. Its vocabulary is 50,304 (GPT-2's
 * 50,257 padded to a multiple of 64, as nanoGPT does) so the GPT-2 tokenizer's 38 added tokens fit.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchModel {
  readonly name: string;
  /** Folder transformers.js loads (config.json, tokenizer files, onnx/model.onnx). */
  readonly dir: string;
  readonly modelPath: string;
  readonly parameters: number;
  /** Bytes of fp32 weights. */
  readonly weightBytes: number;
  readonly dims: { readonly vocab: number; readonly hidden: number; readonly layers: number; readonly heads: number; readonly mlp: number };
}

export const SYNTHETIC_124M = { vocabSize: 50_304, hiddenSize: 768, numLayers: 12, numHeads: 12, maxPositions: 1024, mlpSize: 3072 } as const;
const SYNTHETIC_VERSION = 'v1';

export function parameterCount(d: { vocab: number; hidden: number; layers: number; mlp: number }, positions: number, tiedHead: boolean): number {
  const perLayer = 4 * d.hidden * d.hidden + 4 * d.hidden + 2 * d.hidden * d.mlp + d.mlp + d.hidden + 4 * d.hidden;
  return d.vocab * d.hidden * (tiedHead ? 1 : 2) + positions * d.hidden + d.layers * perLayer + 2 * d.hidden;
}

/**
 * Copies rather than links: mlrb-eval reads only files inside the model's folder and refuses a symlink that
 * resolves outside it (models are hostile input). The old file is removed first, so an earlier run's
 * symlink is replaced instead of written through into shared/.
 */
function copyInto(source: string, destination: string): void {
  rmSync(destination, { force: true });
  copyFileSync(source, destination);
}

/** Generates (once) and lays out the synthetic GPT-2-small model; the GPT-2 tokenizer comes from shared/. */
export function syntheticGpt2Small(sharedDir: string): BenchModel {
  const dir = path.join(tmpdir(), `mlrb-bench-gpt2-124m-${SYNTHETIC_VERSION}`);
  const onnxDir = path.join(dir, 'onnx');
  const modelPath = path.join(onnxDir, 'model.onnx');
  const marker = path.join(dir, 'complete');
  if (!existsSync(marker)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(onnxDir, { recursive: true });
    const generator = path.join(path.dirname(fileURLToPath(import.meta.url)), 'generate-synthetic.ts');
    process.stderr.write(`bench: generating the 124M synthetic model into ${dir} (once; ~20 s, ~3 GB peak in a child process)\n`);
    const child = spawnSync(process.execPath, ['--import', 'tsx', generator, onnxDir, JSON.stringify(SYNTHETIC_124M)], { stdio: 'inherit' });
    if (child.status !== 0) throw new Error(`generating the synthetic model failed (exit ${child.status})`);
    const tokenizerDir = path.join(sharedDir, 'models', 'tiny-random-gpt2-past');
    const d = SYNTHETIC_124M;
    // One config.json both loaders read: transformers.js keys off model_type gpt2 (n_embd, n_head …),
    // mlrb-eval's metadata reader accepts the same names.
    const config = {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      vocab_size: d.vocabSize,
      n_embd: d.hiddenSize,
      n_layer: d.numLayers,
      n_head: d.numHeads,
      n_positions: d.maxPositions,
      n_inner: d.mlpSize,
      bos_token_id: 50_256,
      eos_token_id: 50_256,
      use_cache: true,
    };
    for (const folder of [dir, onnxDir]) {
      writeFileSync(path.join(folder, 'config.json'), JSON.stringify(config, null, 2));
      for (const file of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(path.join(tokenizerDir, file), path.join(folder, file));
    }
    writeFileSync(marker, new Date().toISOString());
  }
  const dims = {
    vocab: SYNTHETIC_124M.vocabSize,
    hidden: SYNTHETIC_124M.hiddenSize,
    layers: SYNTHETIC_124M.numLayers,
    heads: SYNTHETIC_124M.numHeads,
    mlp: SYNTHETIC_124M.mlpSize,
  };
  const parameters = parameterCount(dims, SYNTHETIC_124M.maxPositions, false);
  return { name: 'synthetic GPT-2 124M', dir, modelPath, parameters, weightBytes: parameters * 4, dims };
}

/** stories260K from shared/, copied into a transformers.js layout (1.1 MB). */
export function stories260K(sharedDir: string): BenchModel {
  const source = path.join(sharedDir, 'models', 'stories260K');
  const dir = path.join(tmpdir(), 'mlrb-bench-stories260K');
  mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) {
    copyInto(path.join(source, file), path.join(dir, file));
    copyInto(path.join(source, file), path.join(dir, 'onnx', file));
  }
  copyInto(path.join(source, 'model.onnx'), path.join(dir, 'onnx', 'model.onnx'));
  const dims = { vocab: 512, hidden: 64, layers: 5, heads: 8, mlp: 172 };
  const parameters = 268_414;
  return { name: 'stories260K', dir, modelPath: path.join(dir, 'onnx', 'model.onnx'), parameters, weightBytes: parameters * 4, dims };
}
