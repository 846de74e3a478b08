/**
 * `merge --verify K`: re-scores K documents of each shard, drawn at random, and refuses the merge when any
 * stored result differs from the recomputed one. A merge alone proves only that the shards are consistent with
 * one another and with the data: the identity facts agree, every document is present once, its prompts are
 * the ones the data gives, and every log-likelihood is a log-probability (≤ 0). It cannot prove that a number
 * came from the model: whoever wrote a shard could have written any value ≤ 0. Re-scoring a random sample checks
 * that claim at a cost of K documents per shard; the documents are drawn from a seed the merge chooses (and
 * prints, to replay), so a shard's writer cannot know which of its numbers will be checked. A shard that forged
 * f of its n documents passes with probability about (1 − f/n)^K.
 *
 * The sample is scored as the shards' run scored it: the same tasks, few-shot count, limit, lm-eval rules,
 * maximum length and provider, with no cache (a cache could hold the very numbers being checked). The model must
 * be the one the shards name (its sha256, content digest and tokenizer are compared first). Log-likelihoods
 * agree within LOGLIK_TOLERANCE (hosts with other SIMD kernels round the last bits differently), greedy flags and
 * generated texts exactly.
 */
import { randomInt } from 'node:crypto';
import { MlrbError } from '../errors.js';
import type { Task } from '../tasks/types.js';
import { scoreDocuments } from './evaluate.js';
import type { ShardFile } from './merge-shards.js';
import type { DocOutcome } from '../eval/metrics.js';
import { shardOutcomes, type ShardRecord } from './shard-record.js';

/** |stored − recomputed| allowed: absolute plus relative to the value. */
export const LOGLIK_TOLERANCE = { absolute: 1e-4, relative: 1e-6 } as const;

export interface VerifyShardsOptions {
  /** Documents to re-score per shard (all of a shard's when it has fewer). */
  readonly documentsPerShard: number;
  /** The model; default the lowest shard's `run.model_path`. */
  readonly model?: string | undefined;
  /** The data folder; default the lowest shard's `run.data_dir`. */
  readonly dataDir?: string | undefined;
  /** Seeds the draw (default: a random one, reported in the result). */
  readonly seed?: number | undefined;
  readonly threads?: number | undefined;
  readonly onLog?: ((message: string) => void) | undefined;
}

export interface ShardVerification {
  readonly seed: number;
  /** Documents re-scored per shard index. */
  readonly checked: ReadonlyMap<number, number>;
}

/** A document of a shard: its task and id. */
interface DrawnDocument {
  readonly task: string;
  readonly docId: number;
}

export async function verifyShards(shards: readonly ShardFile[], options: VerifyShardsOptions): Promise<ShardVerification> {
  const count = options.documentsPerShard;
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`--verify expects a whole number of documents ≥ 1 per shard, got ${String(count)}`);
  if (shards.length === 0) throw new RangeError('verifyShards needs shards');
  const seed = options.seed ?? randomInt(2 ** 31);
  const random = seededRandom(seed);
  const reference = [...shards].sort((a, b) => a.record.shard.index - b.record.shard.index)[0] as ShardFile;
  const drawn = new Map(shards.map((shard) => [shard, drawDocuments(shard.record, count, random)]));
  const selection = new Map<string, Set<number>>();
  for (const documents of drawn.values()) {
    for (const { task, docId } of documents) (selection.get(task) ?? selection.set(task, new Set()).get(task))?.add(docId);
  }
  const { identity, run } = reference.record;
  const model = options.model ?? run.model_path;
  options.onLog?.(`verifying ${[...drawn.values()].reduce((sum, documents) => sum + documents.length, 0)} documents (seed ${seed}) with ${model}`);
  const scored = await scoreDocuments(
    {
      model,
      suite: identity.tasks,
      dataDir: options.dataDir ?? run.data_dir,
      ...(identity.num_fewshot !== null ? { numFewshot: identity.num_fewshot } : {}),
      ...(identity.limit !== null ? { limit: identity.limit } : {}),
      allowPartial: identity.allow_partial,
      lmEvalVersion: identity.lm_eval_rules,
      maxLength: identity.max_length,
      provider: identity.provider === 'cuda' ? 'cuda' : 'cpu',
      cacheDir: false,
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
      ...(options.onLog !== undefined ? { onLog: options.onLog } : {}),
    },
    (tasks: readonly Task[]) => new Map(tasks.map((task) => [task.name, selection.get(task.name) ?? new Set<number>()])),
  );
  const facts: [string, string, string][] = [
    ['identity.model_sha256', scored.model.modelSha256, identity.model_sha256],
    ['identity.model_content_sha256', scored.model.modelContentSha256, identity.model_content_sha256],
    ['identity.tokenizer_sha256', scored.model.tokenizerSha256, identity.tokenizer_sha256],
  ];
  for (const [field, found, claimed] of facts) {
    if (found !== claimed)
      throw shardError(
        reference.file,
        field,
        `the model verified with (${model}) is not the one the shards name: its ${field.slice('identity.'.length)} is ${found}, the shards say ${claimed}`,
      );
  }
  const recomputed = new Map([...scored.outcomes].map(([task, outcomes]) => [task, new Map(outcomes.map((outcome) => [outcome.docId, outcome]))]));
  for (const [shard, documents] of drawn) {
    const stored = shardOutcomes(shard.record);
    for (const { task, docId } of documents) {
      const mine = stored.get(task)?.find((outcome) => outcome.docId === docId);
      const fresh = recomputed.get(task)?.get(docId);
      const problem = mine === undefined || fresh === undefined ? 'it was not scored' : outcomeMismatch(mine, fresh);
      if (problem !== undefined) {
        throw shardError(
          shard.file,
          `documents.${task}`,
          `re-scoring document ${docId} of ${task} gives other results than the shard holds: ${problem}; the shard's numbers did not come from this model`,
        );
      }
    }
  }
  return { seed, checked: new Map([...drawn].map(([shard, documents]) => [shard.record.shard.index, documents.length])) };
}

/** Up to `count` of the shard's documents, drawn without replacement. */
function drawDocuments(record: ShardRecord, count: number, random: () => number): DrawnDocument[] {
  const all = Object.entries(record.documents).flatMap(([task, documents]) => documents.docs.map((document) => ({ task, docId: document.doc_id })));
  // A partial Fisher–Yates shuffle: the first `count` places are a uniform sample.
  for (let index = 0; index < Math.min(count, all.length); index += 1) {
    const pick = index + Math.floor(random() * (all.length - index));
    [all[index], all[pick]] = [all[pick] as DrawnDocument, all[index] as DrawnDocument];
  }
  return all.slice(0, count);
}

/** What differs between a stored and a recomputed outcome, in words; undefined when they agree. */
function outcomeMismatch(stored: DocOutcome, fresh: DocOutcome): string | undefined {
  if (stored.logliks.length !== fresh.logliks.length) return `${stored.logliks.length} log-likelihoods stored, ${fresh.logliks.length} recomputed`;
  for (let choice = 0; choice < fresh.logliks.length; choice += 1) {
    const [mine, theirs] = [stored.logliks[choice] as number, fresh.logliks[choice] as number];
    const allowed = LOGLIK_TOLERANCE.absolute + LOGLIK_TOLERANCE.relative * Math.abs(theirs);
    if (!(Math.abs(mine - theirs) <= allowed) && mine !== theirs) return `choice ${choice}'s log-likelihood is ${mine}, recomputed ${theirs}`;
    if (stored.isGreedy[choice] !== fresh.isGreedy[choice])
      return `choice ${choice}'s greedy flag is ${String(stored.isGreedy[choice])}, recomputed ${String(fresh.isGreedy[choice])}`;
  }
  const [mine, theirs] = [stored.responses ?? [], fresh.responses ?? []];
  if (mine.length !== theirs.length || mine.some((response, index) => response !== theirs[index]))
    return 'its generated text differs from the text generated again';
  return undefined;
}

/** mulberry32: a small seeded stream, so a verification replays from the seed it printed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

function shardError(file: string, field: string, reason: string): MlrbError {
  return new MlrbError('BAD_SHARD', `${file}: ${reason}`, { file, field });
}
