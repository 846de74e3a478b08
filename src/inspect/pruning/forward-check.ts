/**
 * Does the pruned model still run? One short request through the same path evaluation uses (loadModel +
 * scoreModelInputs), and a finite log-likelihood out. A failure is a finding, not an exception.
 */
import { scoreModelInputs } from '../../engine/score-requests.js';
import { modelInputsFromTokens } from '../../eval/text-requests.js';
import { loadModel } from '../../model/onnx-model.js';

export const FORWARD_CHECK_TOKENS = 8;

export interface ForwardCheck {
  readonly ok: boolean;
  readonly tokens: number;
  readonly loglik: number | null;
  readonly ms: number;
  /** The error's code and message when the model did not run. */
  readonly error: { readonly code: string; readonly message: string } | null;
}

export async function checkForwardPass(modelPath: string, options: { readonly threads?: number; readonly ortLibrary?: string } = {}): Promise<ForwardCheck> {
  const started = performance.now();
  try {
    const model = await loadModel({ model: modelPath, threads: options.threads, ortLibrary: options.ortLibrary });
    try {
      const vocab = model.vocabSize ?? 2;
      const ids = Array.from({ length: FORWARD_CHECK_TOKENS + 1 }, (_, index) => (index * 31 + 7) % vocab);
      const inputs = modelInputsFromTokens(model, [{ contextTokens: ids.slice(0, -1), continuationTokens: ids.slice(-1) }]);
      const { results } = await scoreModelInputs(model, inputs, { batchSize: 1 });
      const loglik = results[0]?.loglik ?? Number.NaN;
      const ok = Number.isFinite(loglik);
      return {
        ok,
        tokens: inputs[0]!.inputTokens.length,
        loglik,
        ms: performance.now() - started,
        error: ok ? null : { code: 'NUMERIC', message: `the forward pass gave a non-finite log-likelihood (${loglik})` },
      };
    } finally {
      model.dispose();
    }
  } catch (error) {
    const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'INTERNAL';
    return { ok: false, tokens: 0, loglik: null, ms: performance.now() - started, error: { code, message: (error as Error).message ?? String(error) } };
  }
}
