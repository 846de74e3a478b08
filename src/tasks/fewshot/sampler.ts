/**
 * lm-eval's few-shot draw (ContextSampler.get_context, v0.4.4–v0.4.8), one call per evaluated document in
 * document order:
 *   n        = k + 1 when the config's fewshot_split equals its test_split (both unset counts), else k
 *   drawn    = sampler.sample(n): first_n takes docs[:n]; default takes random.Random(seed).sample(docs, n),
 *              one generator per task, seeded once, so every draw depends on the ones before it
 *   examples = [x for x in drawn if x != doc][:k]
 * Document equality is lm-eval's dict equality, applied to `source` (the document as lm-eval sees it). The draw
 * serves any kind of document that carries its source (multiple-choice and generate-until tasks alike).
 */
import { PythonRandom } from './python-random.js';

/** A document the sampler can compare: the row as lm-eval sees it. */
export interface SourcedDoc {
  readonly source: Readonly<Record<string, unknown>>;
}

/** What a draw needs of a task's few-shot configuration (FewshotConfig is one). */
export interface FewshotPool<Doc extends SourcedDoc> {
  readonly sampler: 'first_n' | 'default';
  readonly docs: readonly Doc[];
  readonly drawsExtra?: boolean;
  readonly seed?: number;
}

/** lm-eval's default fewshot_random_seed. */
export const DEFAULT_FEWSHOT_SEED = 1234;

/** Returns the examples for each document; call it once per document, in document order. */
export type FewshotDraw<Doc extends SourcedDoc> = (doc: Doc) => readonly Doc[];

/** How many few-shot documents a k-shot run needs (k, or k + 1 with the extra draw). */
export function fewshotDocsNeeded(config: FewshotPool<SourcedDoc>, count: number): number {
  return count === 0 ? 0 : count + (config.drawsExtra === true ? 1 : 0);
}

/** Throws a RangeError naming the task when its few-shot split cannot supply a k-shot draw. */
export function checkFewshotCount(taskName: string, config: FewshotPool<SourcedDoc> | undefined, count: number): void {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`numFewshot must be a non-negative integer; got ${String(count)}`);
  if (count === 0) return;
  if (config === undefined) throw new RangeError(`task ${taskName} has no few-shot documents; use numFewshot 0`);
  const needed = fewshotDocsNeeded(config, count);
  if (needed > config.docs.length) {
    const extra = config.drawsExtra === true ? ` (${count} + 1: lm-eval draws one extra and drops the evaluated document)` : '';
    throw new RangeError(`task ${taskName}: ${count}-shot needs ${needed} few-shot documents${extra}, but its few-shot split has ${config.docs.length}`);
  }
}

export function createFewshotDraw<Doc extends SourcedDoc>(taskName: string, config: FewshotPool<Doc> | undefined, count: number): FewshotDraw<Doc> {
  checkFewshotCount(taskName, config, count);
  if (count === 0 || config === undefined) return () => [];
  const needed = fewshotDocsNeeded(config, count);
  const { docs } = config;
  const sample: () => readonly Doc[] =
    config.sampler === 'first_n' ? () => docs.slice(0, needed) : randomSampler(docs, needed, config.seed ?? DEFAULT_FEWSHOT_SEED);
  return (doc) => {
    const key = documentKey(doc);
    return sample()
      .filter((example) => documentKey(example) !== key)
      .slice(0, count);
  };
}

function randomSampler<Doc>(docs: readonly Doc[], count: number, seed: number): () => readonly Doc[] {
  const random = new PythonRandom(seed);
  return () => random.sample(docs, count);
}

const keys = new WeakMap<SourcedDoc, string>();

/** A canonical form of the document's source, so equal dicts give equal keys whatever their key order. */
function documentKey(doc: SourcedDoc): string {
  let key = keys.get(doc);
  if (key === undefined) {
    key = JSON.stringify(canonical(doc.source));
    keys.set(doc, key);
  }
  return key;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((name) => [name, canonical(record[name])]),
    );
  }
  return value;
}
