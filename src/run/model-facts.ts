/**
 * What a run records about its model: the files' digests (started as soon as the model is known good, since
 * hashing a multi-GB model takes seconds; remembered between runs in the cache folder), what ran (provider, ORT,
 * fused attention, the load-time rewrites, the CPU's kernel path) and the tokens it framed requests with.
 */
import { modelContentSha256, modelFilesLabel, modelFilesSha256 } from '../cache/model-digest.js';
import { cpuRunFacts, environmentSummary } from '../eval/run-facts.js';
import type { LanguageModel } from '../model/onnx-model.js';
import { loadBinding } from '../native/binding.js';
import type { ModelFacts } from './run-results.js';

export interface ModelDigests {
  readonly modelSha256: Promise<string>;
  readonly modelContentSha256: Promise<string>;
}

export function startModelDigests(model: LanguageModel, cacheDir: string | false, warn: (message: string) => void): ModelDigests {
  return {
    modelSha256: modelFilesSha256(model.graphFiles, cacheDir, { onWarning: warn }),
    modelContentSha256: modelContentSha256(model.graphFiles, cacheDir, { onWarning: warn }),
  };
}

/** `modelPath` is the model as the user named it (a folder, a hub snapshot or the .onnx file). */
export async function modelFactsOf(model: LanguageModel, modelPath: string, digests: ModelDigests): Promise<ModelFacts> {
  return {
    modelPath,
    modelFile: modelFilesLabel(model.graphFiles),
    modelSha256: await digests.modelSha256,
    modelContentSha256: await digests.modelContentSha256,
    tokenizerSha256: model.requireTokenizer().sha256,
    provider: model.provider,
    ortVersion: model.runtime.version,
    attentionFused: model.attentionFused,
    rewrites: model.rewrites.map((outcome) => ({ name: outcome.name, applied: outcome.applied, reason: outcome.reason })),
    cpu: cpuRunFacts(loadBinding().buildInfo().cpu),
    maxLength: model.maxLength,
    bos: { text: model.metadata.bosToken, id: model.metadata.bosTokenId },
    eos: { text: model.metadata.eosToken, id: model.metadata.eosTokenId },
    environment: environmentSummary(model.runtime.version, model.provider),
  };
}
