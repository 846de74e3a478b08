/**
 * lm-eval's per-sample hashes (evaluator.evaluate: doc_hash, prompt_hash, target_hash) and the per-task
 * `task_hashes` EvaluationTracker derives from them, so two runs over the same documents and prompts can be
 * matched by hash without diffing samples files.
 */
import type { LoggedSample } from './samples.js';
import { sha256Hex } from './run-facts.js';

export interface SampleHashes {
  readonly doc_hash: string;
  readonly prompt_hash: string;
  readonly target_hash: string;
}

/**
 * doc_hash is sha256 of json.dumps(doc, indent=2, ensure_ascii=False): JSON.stringify with an indent of 2
 * writes the same text for the strings, integers, booleans and lists our documents hold. prompt_hash is over
 * the first request's context, target_hash over str(target).
 */
export function sampleHashes(sample: LoggedSample): SampleHashes {
  let hashes = hashed.get(sample);
  if (hashes === undefined) {
    const context = sample.arguments[0]?.[0];
    hashes = {
      doc_hash: sha256Hex(JSON.stringify(sample.doc, null, 2)),
      prompt_hash: sha256Hex(typeof context === 'string' ? context : ''),
      target_hash: sha256Hex(String(sample.target)),
    };
    hashed.set(sample, hashes);
  }
  return hashes;
}

/** Each sample's hashes, taken once: the results' task_hashes and the samples file both need them. */
const hashed = new WeakMap<LoggedSample, SampleHashes>();

/** save_results_aggregated: sha256 over the concatenation of each sample's three hashes, in sample order. */
export function taskHashes(samples: ReadonlyMap<string, readonly LoggedSample[]>): Record<string, string> {
  return Object.fromEntries(
    [...samples].map(([task, records]) => [
      task,
      sha256Hex(
        records
          .map((record) => {
            const hashes = sampleHashes(record);
            return hashes.doc_hash + hashes.prompt_hash + hashes.target_hash;
          })
          .join(''),
      ),
    ]),
  );
}
