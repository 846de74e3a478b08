/**
 * How both transformers.js peers (scoring and generation) load a model: from a local folder only, fp32 on the
 * CPU through onnxruntime-node, with `threads` intra-op threads when given (else ORT's default).
 */
import path from 'node:path';
import { AutoModelForCausalLM, env } from '@huggingface/transformers';

export type TransformersJsModel = Awaited<ReturnType<typeof AutoModelForCausalLM.from_pretrained>>;

export async function loadTransformersJsModel(modelDir: string, threads?: number): Promise<TransformersJsModel> {
  env.allowRemoteModels = false;
  env.localModelPath = path.dirname(modelDir);
  return AutoModelForCausalLM.from_pretrained(path.basename(modelDir), {
    dtype: 'fp32',
    device: 'cpu',
    local_files_only: true,
    ...(threads ? { session_options: { intraOpNumThreads: threads } } : {}),
  });
}
