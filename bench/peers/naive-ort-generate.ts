/**
 * The generation loop a user writes by hand with onnxruntime-node's JS API, greedy, argmax in JS:
 *  - without KV (a graph with input_ids, attention_mask → logits): every step reruns the whole sequence so
 *    far and takes the argmax of each row's last position;
 *  - with KV (optimum's past_key_values.{i}.key/.value → present.{i}.key/.value): the prompt runs once with
 *    an empty past, then each step runs the newest token alone and feeds the presents back as the past.
 * Full logits come back to JS at every step, as in any such loop.
 */
import * as ort from 'onnxruntime-node';
import type { GreedyDecoder } from './greedy-decoder.js';

const PAST_PREFIX = 'past_key_values.';
const PRESENT_PREFIX = 'present.';

function argmax(values: Float32Array, start: number, length: number): number {
  let best = start;
  for (let index = start + 1; index < start + length; index++) if ((values[index] as number) > (values[best] as number)) best = index;
  return best - start;
}

/** The argmax of every row's last position of logits [batch, sequence, vocab]. */
function lastPositionArgmax(logits: ort.Tensor): number[] {
  const [batch, sequence, vocab] = logits.dims as [number, number, number];
  const data = logits.data as Float32Array;
  return Array.from({ length: batch }, (_, row) => argmax(data, (row * sequence + sequence - 1) * vocab, vocab));
}

const int64Tensor = (rows: readonly (readonly number[])[]): ort.Tensor =>
  new ort.Tensor('int64', BigInt64Array.from(rows.flatMap((row) => row.map(BigInt))), [rows.length, rows[0]?.length ?? 0]);
const ones = (batch: number, length: number): ort.Tensor => new ort.Tensor('int64', new BigInt64Array(batch * length).fill(1n), [batch, length]);

/** Zero-length past tensors [batch, kv_heads, 0, head_dim], their fixed sizes read from the graph's inputs. */
function emptyPast(session: ort.InferenceSession, batch: number): Record<string, ort.Tensor> {
  const past: Record<string, ort.Tensor> = {};
  for (const input of session.inputMetadata) {
    if (!input.name.startsWith(PAST_PREFIX)) continue;
    if (!input.isTensor) throw new TypeError(`${input.name} is not a tensor input`);
    const dims = input.shape.map((dim, axis) => (axis === 0 ? batch : typeof dim === 'number' ? dim : 0));
    past[input.name] = new ort.Tensor('float32', new Float32Array(0), dims);
  }
  return past;
}

async function decodeWithoutPast(session: ort.InferenceSession, prompts: readonly (readonly number[])[], maxNewTokens: number): Promise<number[][]> {
  const sequences = prompts.map((prompt) => [...prompt]);
  for (let step = 0; step < maxNewTokens; step++) {
    const length = sequences[0]?.length ?? 0;
    const outputs = await session.run({ input_ids: int64Tensor(sequences), attention_mask: ones(sequences.length, length) });
    lastPositionArgmax(outputs.logits as ort.Tensor).forEach((token, row) => sequences[row]?.push(token));
  }
  return sequences.map((sequence, row) => sequence.slice(prompts[row]?.length ?? 0));
}

async function decodeWithPast(session: ort.InferenceSession, prompts: readonly (readonly number[])[], maxNewTokens: number): Promise<number[][]> {
  const batch = prompts.length;
  const generated: number[][] = prompts.map(() => []);
  let feeds: Record<string, ort.Tensor> = {
    input_ids: int64Tensor(prompts),
    attention_mask: ones(batch, prompts[0]?.length ?? 0),
    ...emptyPast(session, batch),
  };
  for (let step = 0; step < maxNewTokens; step++) {
    const outputs = await session.run(feeds);
    const next = lastPositionArgmax(outputs.logits as ort.Tensor);
    next.forEach((token, row) => generated[row]?.push(token));
    const attended = (feeds.attention_mask?.dims[1] ?? 0) + 1;
    feeds = { input_ids: int64Tensor(next.map((token) => [token])), attention_mask: ones(batch, attended) };
    for (const [name, value] of Object.entries(outputs)) {
      if (name.startsWith(PRESENT_PREFIX)) feeds[PAST_PREFIX + name.slice(PRESENT_PREFIX.length)] = value;
    }
  }
  return generated;
}

export async function createNaiveOrtDecoder(
  modelPath: string,
  options: { readonly withPast: boolean; readonly threads?: number | undefined },
): Promise<GreedyDecoder> {
  const session = await ort.InferenceSession.create(modelPath, options.threads ? { intraOpNumThreads: options.threads } : {});
  const hasPast = session.inputNames.some((name) => name.startsWith(PAST_PREFIX));
  if (hasPast !== options.withPast) {
    await session.release();
    throw new TypeError(
      `${modelPath}: the ${options.withPast ? 'KV' : 'no-KV'} loop needs a graph ${options.withPast ? 'with' : 'without'} ${PAST_PREFIX}* inputs`,
    );
  }
  return {
    decode: (prompts, maxNewTokens) => (options.withPast ? decodeWithPast : decodeWithoutPast)(session, prompts, maxNewTokens),
    dispose: () => session.release(),
  };
}
