/**
 * What a score is a function of, besides its request: the model's bytes and the scorer that ran it. The model
 * digest covers the graph file and every external-data file (a fine-tune saved over `model.onnx_data` is
 * another model); the scorer identity covers the tool version, the addon build (its file's sha256), the
 * ONNX Runtime version, the provider and device that ran (a CUDA loglik differs from the CPU's by ~1e-4, an
 * AVX-512 kernel's from an AVX2 one's in the last bits) and whether attention ran fused. File hashes are
 * remembered between runs (file-digests.ts), so a rerun pays none of them again.
 */
import { cpus } from 'node:os';
import { toolVersion } from '../io/fingerprint.js';
import { modelContentSha256 } from './model-digest.js';
import type { LanguageModel } from '../model/onnx-model.js';
import { loadBinding, loadedAddonPath } from '../native/binding.js';
import { rememberedSha256, type RememberOptions } from './file-digests.js';

/** Bump when anything in how a batch is scored changes its numbers without changing the tool version. */
const SCORING_RULES_VERSION = 1;

/** What the cache is keyed by, for this model and scorer. */
export interface ScoreNamespace {
  /** sha256 over the graph file and its external-data files. */
  readonly modelDigest: string;
  /** The scorer's identity, canonical JSON. */
  readonly scorer: string;
}

/** `cacheDir` is where file hashes are remembered (false: hash every time). */
export async function scoreNamespace(model: LanguageModel, cacheDir: string | false, options: RememberOptions = {}): Promise<ScoreNamespace> {
  const scorer = JSON.stringify({
    rules: SCORING_RULES_VERSION,
    tool: toolVersion(),
    addon: await rememberedSha256(loadedAddonPath(), cacheDir, options),
    ort: model.runtime.version,
    provider: model.provider,
    device: deviceName(model),
    attentionFused: model.attentionFused,
  });
  return { modelDigest: await modelContentSha256(model.graphFiles, cacheDir, options), scorer };
}

function deviceName(model: LanguageModel): string {
  if (model.provider === 'cuda') {
    const device = loadBinding().cudaDevice();
    return device ? `${device.name} (sm ${device.computeCapability})` : 'cuda';
  }
  return cpus()[0]?.model ?? 'cpu';
}
