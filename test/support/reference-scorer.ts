/**
 * The independent scoring path that tests compare the product against: plain onnxruntime-node, one
 * sequence at a time (batch 1, no padding, empty past), full logits back to JS, log-softmax in float64.
 * It deliberately shares no code with src/ so that a bug there cannot hide in both paths.
 */
import ort from 'onnxruntime-node';

export interface ReferenceLogits {
  /** Row-major [rows, vocabSize]; row p is the distribution for the token after input position p. */
  data: Float32Array;
  rows: number;
  vocabSize: number;
}

export interface ReferenceScore {
  loglik: number;
  isGreedy: boolean;
}

export interface ReferenceScorer {
  readonly inputNames: readonly string[];
  readonly logitsName: string;
  /** `inputTokens` are already (context + continuation)[-(L+1):][:-1]; the continuation is scored at its last positions. */
  scoreTokens(inputTokens: readonly number[], continuationTokens: readonly number[]): Promise<ReferenceScore>;
  logitsFor(inputTokens: readonly number[]): Promise<ReferenceLogits>;
  dispose(): Promise<void>;
}

type TensorMetadata = { name: string; type: string; shape: readonly (number | string)[] };

export async function createReferenceScorer(modelPath: string): Promise<ReferenceScorer> {
  const session = await ort.InferenceSession.create(modelPath, { executionProviders: ['cpu'] });
  const inputs = session.inputMetadata.map((metadata): TensorMetadata => {
    if (!metadata.isTensor) throw new Error(`reference scorer: input ${metadata.name} is not a tensor`);
    return { name: metadata.name, type: metadata.type, shape: metadata.shape };
  });
  const logitsName = pickLogitsOutput(session);

  const logitsFor = async (inputTokens: readonly number[]): Promise<ReferenceLogits> => {
    if (inputTokens.length === 0) throw new RangeError('reference scorer: empty input');
    const feeds: Record<string, ort.Tensor> = {};
    for (const input of inputs) feeds[input.name] = feedFor(input, inputTokens);
    const results = await session.run(feeds, [logitsName]);
    const logits = results[logitsName];
    if (logits === undefined) throw new Error(`reference scorer: no ${logitsName} output`);
    const [batch, rows, vocabSize] = logits.dims;
    if (logits.dims.length !== 3 || batch !== 1 || rows !== inputTokens.length || vocabSize === undefined) {
      throw new Error(`reference scorer: unexpected logits shape [${logits.dims.join(', ')}]`);
    }
    return { data: toFloat32(logits), rows, vocabSize };
  };

  return {
    inputNames: session.inputNames,
    logitsName,
    logitsFor,
    async scoreTokens(inputTokens, continuationTokens) {
      return scoreContinuation(await logitsFor(inputTokens), continuationTokens);
    },
    async dispose() {
      await session.release();
    },
  };
}

/** Scores a continuation from logits the reference computed: its tokens sit at the last positions. */
export function scoreContinuation(logits: ReferenceLogits, continuationTokens: readonly number[]): ReferenceScore {
  const { data, rows, vocabSize } = logits;
  const count = continuationTokens.length;
  if (count === 0 || count > rows) throw new RangeError(`reference scorer: ${count} continuation tokens for ${rows} inputs`);
  let loglik = 0;
  let isGreedy = true;
  continuationTokens.forEach((token, index) => {
    const row = data.subarray((rows - count + index) * vocabSize, (rows - count + index + 1) * vocabSize);
    loglik += logSoftmaxAt(row, token);
    if (firstArgmax(row) !== token) isGreedy = false;
  });
  return { loglik, isGreedy };
}

/** 'logits' when the model has it, otherwise the first output declared as a rank-3 float tensor. */
function pickLogitsOutput(session: ort.InferenceSession): string {
  if (session.outputNames.includes('logits')) return 'logits';
  const candidate = session.outputMetadata.find(
    (metadata) => metadata.isTensor && metadata.shape.length === 3 && (metadata.type === 'float32' || metadata.type === 'float16'),
  );
  if (candidate === undefined) throw new Error('reference scorer: no logits-like output');
  return candidate.name;
}

function feedFor(input: TensorMetadata, tokens: readonly number[]): ort.Tensor {
  const length = tokens.length;
  if (input.name === 'input_ids') return integerTensor(input, tokens, [1, length]);
  if (input.name === 'attention_mask')
    return integerTensor(
      input,
      tokens.map(() => 1),
      [1, length],
    );
  if (input.name === 'position_ids')
    return integerTensor(
      input,
      tokens.map((_, index) => index),
      [1, length],
    );
  if (input.name === 'token_type_ids')
    return integerTensor(
      input,
      tokens.map(() => 0),
      [1, length],
    );
  if (input.name.startsWith('past')) {
    // The past sequence axis is second to last in both the optimum and the gpt2 layouts; other symbolic dims are batch.
    const dims = input.shape.map((dim, axis) => (axis === input.shape.length - 2 ? 0 : typeof dim === 'number' ? dim : 1));
    if (input.type === 'float32') return new ort.Tensor('float32', new Float32Array(0), dims);
    if (input.type === 'float16') return new ort.Tensor('float16', new Uint16Array(0), dims);
    throw new Error(`reference scorer: unsupported past type ${input.type} for ${input.name}`);
  }
  throw new Error(`reference scorer: does not know how to feed input ${input.name}`);
}

function integerTensor(input: TensorMetadata, values: readonly number[], dims: number[]): ort.Tensor {
  if (input.type === 'int64')
    return new ort.Tensor(
      'int64',
      BigInt64Array.from(values, (value) => BigInt(value)),
      dims,
    );
  if (input.type === 'int32') return new ort.Tensor('int32', Int32Array.from(values), dims);
  throw new Error(`reference scorer: unsupported type ${input.type} for ${input.name}`);
}

function toFloat32(tensor: ort.Tensor): Float32Array {
  if (tensor.type === 'float32') return tensor.data as Float32Array;
  if (tensor.type === 'float16') return Float32Array.from(tensor.data as Uint16Array, halfToNumber);
  throw new Error(`reference scorer: unsupported logits type ${tensor.type}`);
}

function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

function logSoftmaxAt(row: Float32Array, token: number): number {
  if (!Number.isInteger(token) || token < 0 || token >= row.length) throw new RangeError(`token ${token} outside the vocabulary`);
  let maximum = Number.NEGATIVE_INFINITY;
  for (const value of row) maximum = Math.max(maximum, value);
  let sum = 0;
  for (const value of row) sum += Math.exp(value - maximum);
  return row[token]! - maximum - Math.log(sum);
}

function firstArgmax(row: Float32Array): number {
  let best = 0;
  for (let index = 1; index < row.length; index++) if (row[index]! > row[best]!) best = index;
  return best;
}
