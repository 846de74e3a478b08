/**
 * Facts about a model that its ONNX graph does not state: maximum length, BOS/EOS ids and KV-cache
 * dimensions. They come from the files exporters put beside model.onnx: Hugging Face `config.json`,
 * onnxruntime-genai `genai_config.json`, and `tokenizer_config.json` as the fallback for special tokens.
 */
import path from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../errors.js';
import { hubSnapshotReadRoot } from '../io/hub-snapshot.js';
import { pathEntryExists } from '../io/regular-file.js';
import { readJsonFileUnder } from '../io/text-file.js';
import { readHfConfig } from './hf-config.js';
import { MAX_CONFIG_SIZE } from './hf-config-schema.js';

export interface ModelMetadata {
  /** config.json's model_type as stated, null without one (lm-eval v0.4.4–v0.4.8 read it: request-encoding.ts). */
  readonly modelType: string | null;
  /** Longest sequence the model accepts (lm-eval's max_length), null when no file states it. */
  readonly maxLength: number | null;
  readonly bosTokenId: number | null;
  readonly eosTokenId: number | null;
  readonly numKeyValueHeads: number | null;
  readonly headDim: number | null;
  readonly vocabSize: number | null;
  readonly hiddenSize: number | null;
  readonly attentionHeads: number | null;
  /** config.json's is_encoder_decoder (null: not stated); the folder's files decide how it loads (src/model/seq2seq-files.ts). */
  readonly isEncoderDecoder: boolean | null;
  /** An encoder-decoder's first decoder input (config.json's decoder_start_token_id). */
  readonly decoderStartTokenId: number | null;
  readonly padTokenId: number | null;
  /** Special tokens named in tokenizer_config.json, resolved to ids by the tokenizer later. */
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  readonly sources: readonly string[];
}

const tokenIdSchema = z.union([z.number().int().nonnegative(), z.array(z.number().int().nonnegative()).nonempty()]).nullish();
const positiveInt = z.number().int().positive().max(MAX_CONFIG_SIZE).nullish();

const genaiConfigSchema = z.looseObject({
  model: z.looseObject({
    bos_token_id: tokenIdSchema,
    eos_token_id: tokenIdSchema,
    vocab_size: positiveInt,
    context_length: positiveInt,
    decoder: z.looseObject({ num_key_value_heads: positiveInt, head_size: positiveInt }).optional(),
  }),
});

const specialTokenSchema = z.union([z.string(), z.looseObject({ content: z.string() })]).nullish();
const tokenizerConfigSchema = z.looseObject({
  bos_token: specialTokenSchema,
  eos_token: specialTokenSchema,
  model_max_length: z.number().positive().nullish(),
});

/**
 * An optional side file: absent is fine, anything else at the path is read under the config-file policy
 * (regular file, inside the model's folder or its hub-cache repository, a few MB), so a FIFO or a link to
 * /dev/zero is an error, not a hang.
 */
function readJson<T>(modelDir: string, name: string, schema: z.ZodType<T>): T | undefined {
  const file = path.join(modelDir, name);
  if (!pathEntryExists(file)) return undefined;
  return readJsonFile(file, hubSnapshotReadRoot(modelDir, 'model'), name, schema);
}

function readJsonFile<T>(file: string, root: string, name: string, schema: z.ZodType<T>): T {
  const raw = readJsonFileUnder(file, { kind: 'config', root, what: name });
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new MlrbError('BAD_MODEL', `${file} has unexpected fields: ${z.prettifyError(parsed.error)}`, { file });
  }
  return parsed.data;
}

const firstId = (value: number | readonly number[] | null | undefined): number | null =>
  value === null || value === undefined ? null : typeof value === 'number' ? value : (value[0] ?? null);
const tokenText = (value: z.infer<typeof specialTokenSchema>): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : value.content;

// transformers marks "no limit" with a huge model_max_length (int(1e30)); lm-eval then uses 2048.
const UNSET_MODEL_MAX_LENGTH = 1e29;

export interface ModelMetadataSources {
  /** A config.json named explicitly (`--config`); it must exist, and its own folder bounds the read. */
  readonly configFile?: string;
}

export function readModelMetadata(modelDir: string, sources: ModelMetadataSources = {}): ModelMetadata {
  const read: string[] = [];
  const note = <T>(file: string, value: T | undefined): T | undefined => {
    if (value !== undefined) read.push(file);
    return value;
  };
  const { configFile } = sources;
  // config.json goes through the one reader the edge checks use too (hf-config), so both see one architecture.
  const besideConfig = path.join(modelDir, 'config.json');
  const hf =
    configFile === undefined
      ? note('config.json', pathEntryExists(besideConfig) ? readHfConfig(besideConfig) : undefined)
      : note(configFile, readHfConfig(configFile));
  const genai = note('genai_config.json', readJson(modelDir, 'genai_config.json', genaiConfigSchema))?.model;
  const tokenizerConfig = note('tokenizer_config.json', readJson(modelDir, 'tokenizer_config.json', tokenizerConfigSchema));

  const tokenizerLimit = tokenizerConfig?.model_max_length;
  const maxLength =
    hf?.maxPositions ??
    genai?.context_length ??
    (tokenizerLimit !== undefined && tokenizerLimit !== null && tokenizerLimit < UNSET_MODEL_MAX_LENGTH ? tokenizerLimit : null);
  return {
    modelType: hf?.statedModelType ?? null,
    maxLength,
    bosTokenId: hf?.bosTokenId ?? firstId(genai?.bos_token_id),
    eosTokenId: hf?.eosTokenId ?? firstId(genai?.eos_token_id),
    numKeyValueHeads: hf?.numKeyValueHeads ?? genai?.decoder?.num_key_value_heads ?? null,
    headDim: hf?.headDim ?? genai?.decoder?.head_size ?? null,
    vocabSize: hf?.vocabSize ?? genai?.vocab_size ?? null,
    hiddenSize: hf?.hiddenSize ?? null,
    attentionHeads: hf?.numHeads ?? null,
    isEncoderDecoder: hf?.isEncoderDecoder ?? null,
    decoderStartTokenId: hf?.decoderStartTokenId ?? null,
    padTokenId: hf?.padTokenId ?? null,
    bosToken: tokenText(tokenizerConfig?.bos_token),
    eosToken: tokenText(tokenizerConfig?.eos_token),
    sources: read,
  };
}
