/**
 * The transformers.js peer: what a user of @huggingface/transformers writes to get lm-eval's logliks.
 * AutoModelForCausalLM from a local folder (fp32, CPU), requests in their given order in padded batches,
 * a forward pass for full [B, T, V] logits, and the library's log_softmax at every scored position.
 * It scores the same token ids as mlrb-eval (tokenization is measured separately), and its model session
 * is onnxruntime-node's, the same ORT build mlrb-eval loads.
 */
import { Tensor, log_softmax } from '@huggingface/transformers';
import type { ModelInput } from '../../src/engine/model-input.js';
import { loadTransformersJsModel } from './transformers-js-model.js';

export interface TransformersJsScorer {
  scoreAll(inputs: readonly ModelInput[]): Promise<number[]>;
  dispose(): Promise<void>;
}

export async function createTransformersJsScorer(modelDir: string, options: { batchSize: number; threads?: number }): Promise<TransformersJsScorer> {
  const model = await loadTransformersJsModel(modelDir, options.threads);
  const scoreBatch = async (batch: readonly ModelInput[]): Promise<number[]> => {
    const length = Math.max(...batch.map((input) => input.inputTokens.length));
    const ids = new BigInt64Array(batch.length * length);
    const mask = new BigInt64Array(batch.length * length);
    batch.forEach((input, row) => {
      input.inputTokens.forEach((token, position) => {
        ids[row * length + position] = BigInt(token);
        mask[row * length + position] = 1n;
      });
    });
    const output = (await model({
      input_ids: new Tensor('int64', ids, [batch.length, length]),
      attention_mask: new Tensor('int64', mask, [batch.length, length]),
    })) as { logits: Tensor };
    const logits = output.logits.data as Float32Array;
    const vocab = output.logits.dims[2] as number;
    return batch.map((input, row) => {
      const count = input.continuationTokens.length;
      let loglik = 0;
      input.continuationTokens.forEach((token, j) => {
        const position = input.inputTokens.length - count + j;
        const start = (row * length + position) * vocab;
        loglik += log_softmax(logits.subarray(start, start + vocab))[token] as number;
      });
      return loglik;
    });
  };
  return {
    async scoreAll(inputs) {
      const logliks: number[] = [];
      for (let start = 0; start < inputs.length; start += options.batchSize) {
        logliks.push(...(await scoreBatch(inputs.slice(start, start + options.batchSize))));
      }
      return logliks;
    },
    async dispose() {
      await model.dispose();
    },
  };
}
