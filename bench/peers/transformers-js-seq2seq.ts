/**
 * The transformers.js encoder-decoder peer: AutoModelForSeq2SeqLM from a local folder (fp32, CPU, onnxruntime-node,
 * the same ORT build as ours; onnx/encoder_model.onnx and onnx/decoder_model_merged.onnx, as optimum exports T5) and
 * the library's own `generate`, greedy. Its output starts with decoder_start_token_id, which is cut off.
 */
import { AutoModelForSeq2SeqLM } from '@huggingface/transformers';
import type { GreedyDecoder } from './greedy-decoder.js';
import { greedyGenerate, loadTransformersJsModel } from './transformers-js-model.js';

export async function createTransformersJsSeq2SeqDecoder(modelDir: string, threads?: number): Promise<GreedyDecoder> {
  const model = await loadTransformersJsModel(modelDir, threads, AutoModelForSeq2SeqLM);
  return {
    decode: (prompts, maxNewTokens) => greedyGenerate(model, prompts, maxNewTokens, 1),
    async dispose() {
      await model.dispose();
    },
  };
}
