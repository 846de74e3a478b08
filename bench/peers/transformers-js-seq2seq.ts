/**
 * The transformers.js encoder-decoder peer: AutoModelForSeq2SeqLM from a local folder (fp32, CPU, onnxruntime-node,
 * the same ORT build as ours; onnx/encoder_model.onnx and onnx/decoder_model_merged.onnx, as optimum exports T5) and
 * the library's own `generate`, greedy. Its output starts with decoder_start_token_id, which is cut off.
 */
import path from 'node:path';
import { AutoModelForSeq2SeqLM, env, Tensor } from '@huggingface/transformers';
import type { GreedyDecoder } from './greedy-decoder.js';

const int64Matrix = (rows: readonly (readonly number[])[], width: number, value?: bigint): Tensor =>
  new Tensor('int64', BigInt64Array.from(rows.flatMap((row) => row.map((id) => value ?? BigInt(id)))), [rows.length, width]);

export async function createTransformersJsSeq2SeqDecoder(modelDir: string, threads?: number): Promise<GreedyDecoder> {
  env.allowRemoteModels = false;
  env.localModelPath = path.dirname(modelDir);
  const model = await AutoModelForSeq2SeqLM.from_pretrained(path.basename(modelDir), {
    dtype: 'fp32',
    device: 'cpu',
    local_files_only: true,
    ...(threads ? { session_options: { intraOpNumThreads: threads } } : {}),
  });
  return {
    async decode(prompts, maxNewTokens) {
      const width = prompts[0]?.length ?? 0;
      const output = (await model.generate({
        input_ids: int64Matrix(prompts, width),
        attention_mask: int64Matrix(prompts, width, 1n),
        max_new_tokens: maxNewTokens,
        do_sample: false,
        eos_token_id: [], // an EOS criterion that matches no id: every row decodes maxNewTokens
      })) as Tensor;
      return (output.tolist() as bigint[][]).map((row) => row.slice(1).map(Number));
    },
    async dispose() {
      await model.dispose();
    },
  };
}
