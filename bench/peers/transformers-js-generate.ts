/**
 * The transformers.js generation peer: AutoModelForCausalLM from a local folder (fp32, CPU, onnxruntime-node,
 * the same ORT build as ours) and the library's own `generate`, greedy. transformers.js 4.3.1 needs a graph
 * with past inputs: after the first step it feeds only the newest token (its use_cache setting is not read),
 * so it has no no-KV row.
 */
import type { GreedyDecoder } from './greedy-decoder.js';
import { greedyGenerate, loadTransformersJsModel } from './transformers-js-model.js';

export async function createTransformersJsDecoder(modelDir: string, threads?: number): Promise<GreedyDecoder> {
  const model = await loadTransformersJsModel(modelDir, threads);
  return {
    decode: (prompts, maxNewTokens) => greedyGenerate(model, prompts, maxNewTokens, prompts[0]?.length ?? 0),
    async dispose() {
      await model.dispose();
    },
  };
}
