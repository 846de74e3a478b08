/**
 * How the transformers.js peers (scoring, causal generation, encoder-decoder generation) load a model: from a local
 * folder only, fp32 on the CPU through onnxruntime-node, with `threads` intra-op threads when given (else ORT's
 * default); and the one greedy `generate` call the generation peers time.
 */
import path from 'node:path';
import { AutoModelForCausalLM, type AutoModelForSeq2SeqLM, env, Tensor } from '@huggingface/transformers';

export type TransformersJsModel = Awaited<ReturnType<typeof AutoModelForCausalLM.from_pretrained>>;

/** AutoModelForCausalLM by default; AutoModelForSeq2SeqLM for an encoder-decoder. */
export async function loadTransformersJsModel(
  modelDir: string,
  threads?: number,
  auto: typeof AutoModelForCausalLM | typeof AutoModelForSeq2SeqLM = AutoModelForCausalLM,
): Promise<TransformersJsModel> {
  env.allowRemoteModels = false;
  env.localModelPath = path.dirname(modelDir);
  return auto.from_pretrained(path.basename(modelDir), {
    dtype: 'fp32',
    device: 'cpu',
    local_files_only: true,
    ...(threads ? { session_options: { intraOpNumThreads: threads } } : {}),
  });
}

const int64Matrix = (rows: readonly (readonly number[])[], width: number, value?: bigint): Tensor =>
  new Tensor('int64', BigInt64Array.from(rows.flatMap((row) => row.map((id) => value ?? BigInt(id)))), [rows.length, width]);

/**
 * Greedy ids for prompts of one length, exactly maxNewTokens each (an EOS criterion that matches no id), with the
 * first `skip` ids of each output row cut: the prompt for a causal model, decoder_start_token_id for an encoder-decoder.
 */
export async function greedyGenerate(
  model: TransformersJsModel,
  prompts: readonly (readonly number[])[],
  maxNewTokens: number,
  skip: number,
): Promise<number[][]> {
  const width = prompts[0]?.length ?? 0;
  const output = (await model.generate({
    input_ids: int64Matrix(prompts, width),
    attention_mask: int64Matrix(prompts, width, 1n),
    max_new_tokens: maxNewTokens,
    do_sample: false,
    eos_token_id: [],
  })) as Tensor;
  return (output.tolist() as bigint[][]).map((row) => row.slice(skip).map(Number));
}
