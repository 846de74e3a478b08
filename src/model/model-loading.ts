/**
 * The loading steps every model kind shares (src/model/onnx-model.ts for causal graphs, seq2seq-model.ts for
 * encoder-decoder exports): the option checks, the side files beside the graphs (config.json and friends, the
 * tokenizer), how many passes run at once, and the tokenizer-facing half of LanguageModel.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { isMlrbError, MlrbError } from '../errors.js';
import { GIT_LFS_POINTER_REASON, gitLfsPointersIn } from '../io/git-lfs-pointer.js';
import type { ExecutionProvider, RuntimeInfo } from '../native/binding.js';
import { PROVIDER_CHOICES } from './execution-provider.js';
import type { LoadModelOptions } from './language-model.js';
import { readModelMetadata, type ModelMetadata } from './model-metadata.js';
import { loadTokenizer, type TextTokenizer } from './tokenizer.js';

/** lm-eval's HFLM falls back to this when neither config nor tokenizer states a length. */
export const DEFAULT_MAX_LENGTH = 2048;

/** TypeError / RangeError for options that are wrong whatever the model. */
export function validateLoadOptions(options: LoadModelOptions): void {
  if (options.threads !== undefined && (!Number.isInteger(options.threads) || options.threads < 0)) {
    throw new RangeError(`threads must be a non-negative integer, got ${options.threads}`);
  }
  if (options.provider !== undefined && !PROVIDER_CHOICES.includes(options.provider)) {
    throw new RangeError(`provider must be one of ${PROVIDER_CHOICES.join(', ')}, got ${JSON.stringify(options.provider)}`);
  }
  if (options.maxLength !== undefined && (!Number.isInteger(options.maxLength) || options.maxLength < 1)) {
    throw new RangeError(`maxLength must be a positive integer, got ${options.maxLength}`);
  }
}

export interface SideFiles {
  readonly metadata: ModelMetadata;
  readonly tokenizer: TextTokenizer | null;
  readonly tokenizerPath: string;
}

/** config.json, genai_config.json, tokenizer_config.json and tokenizer.json from `modelDir` (or as options name them). */
export function loadSideFiles(modelDir: string, options: LoadModelOptions): SideFiles {
  const metadata = readModelMetadata(modelDir, options.config === undefined ? {} : { configFile: path.resolve(options.config) });
  const tokenizerPath = path.resolve(options.tokenizer ?? path.join(modelDir, 'tokenizer.json'));
  const wanted = options.tokenizer !== null && (options.tokenizer !== undefined || existsSync(tokenizerPath));
  return { metadata, tokenizer: wanted ? loadTokenizer(tokenizerPath) : null, tokenizerPath };
}

/**
 * CPU: one pass per core group, since per-op thread synchronisation costs more than splitting ops gains.
 * CUDA: two, so the next batch is padded and uploaded while the current one runs on the device.
 */
export function parallelBatchesFor(provider: ExecutionProvider, threads: number): number {
  if (provider === 'cuda') return 2;
  return threads === 0 ? 1 : Math.max(1, Math.floor(availableParallelism() / threads));
}

/**
 * ONNX Runtime names an external-data file left as a Git LFS pointer only by its length ("offset … given
 * file_length: 132 are out of bounds"); a pointer beside the model is the likelier cause, so it is named instead.
 */
export function explainLoadFailure(error: unknown, modelDir: string, what: string): unknown {
  if (!isMlrbError(error) || (error.code !== 'ORT_RUN' && error.code !== 'BAD_MODEL')) return error;
  const [pointer] = gitLfsPointersIn(modelDir);
  if (pointer === undefined) return error;
  return new MlrbError('BAD_MODEL', `cannot load ${what}: ${pointer} ${GIT_LFS_POINTER_REASON}`, { file: pointer }, { cause: error });
}

export function warningSink(options: LoadModelOptions): (message: string) => void {
  return options.onWarning ?? options.onLog ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
}

/** What a loaded model of any kind holds besides its sessions: where it is, its side files and run settings. */
export abstract class ModelBase {
  constructor(
    readonly provider: ExecutionProvider,
    readonly modelPath: string,
    readonly metadata: ModelMetadata,
    readonly runtime: RuntimeInfo,
    readonly maxLength: number,
    readonly parallelBatches: number,
    private readonly sideFiles: SideFiles,
  ) {}

  requireTokenizer(): TextTokenizer {
    if (this.sideFiles.tokenizer) return this.sideFiles.tokenizer;
    const file = this.sideFiles.tokenizerPath;
    throw new MlrbError('BAD_TOKENIZER', `no tokenizer at ${file}; put tokenizer.json beside the model or pass --tokenizer`, { file });
  }

  prefixTokenId(): number {
    const tokenizer = this.sideFiles.tokenizer;
    const fromText = (token: string | null): number | undefined => (token === null ? undefined : tokenizer?.tokenToId(token));
    const id = this.metadata.bosTokenId ?? fromText(this.metadata.bosToken) ?? this.metadata.eosTokenId ?? fromText(this.metadata.eosToken);
    if (id === undefined || id === null) {
      throw new MlrbError('BAD_MODEL', `${this.modelPath}: neither config.json nor tokenizer_config.json names a BOS or EOS token`, {
        file: this.modelPath,
      });
    }
    return id;
  }
}
