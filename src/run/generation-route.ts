/**
 * The generation route of a run, beside the scoring route: every generate_until request of every task (the
 * shard's documents only, when sharded) goes through one TextGenerator over the loaded model, as HFLM's
 * generate_until does (hflm-generate.ts: contexts encoded by the run's lm-eval rules, EOS text added to the stop
 * strings, greedy). Each document's outcome is its generated text. Generations are not cached: unlike a
 * log-likelihood, a text depends on the whole decoding loop, and a cache would have to key on all of it.
 */
import type { LanguageModel, ModelBackend } from '../model/language-model.js';
import { createTextGenerator } from '../generate/text-generator.js';
import type { GenerateUntilTask } from '../tasks/generate-until-types.js';
import type { Task } from '../tasks/types.js';
import { generateUntil, planGeneration } from '../eval/generate-until/hflm-generate.js';
import type { GenerateUntilRequest } from '../eval/generate-until/requests.js';
import { createGenerateUntilScorer } from '../eval/generate-until/results.js';
import type { TaskRequests } from '../eval/instance.js';
import type { DocOutcome } from '../eval/metrics.js';
import type { EncodingRules } from '../eval/request-encoding.js';
import type { ScoreProgress } from '../engine/score-requests.js';

export interface GenerationRouteOptions {
  /** The run's lm-eval encoding rules (HFLM.tok_batch_encode of a prompt: EncodingRules.encodePrompt). */
  readonly rules: () => EncodingRules;
  /** Prompts decoded together; absent (or --batch-size auto): the engine's default. */
  readonly batchSize?: number | undefined;
  readonly onProgress?: ((progress: ScoreProgress) => void) | undefined;
  readonly onWarning?: ((message: string) => void) | undefined;
}

export interface GenerationRouteResult {
  /** Per generate_until task, the selected documents' outcomes in document order. */
  readonly outcomes: Map<string, DocOutcome[]>;
  readonly requests: number;
  readonly generatedTokens: number;
  readonly seconds: number;
}

export function generateUntilTasks(tasks: readonly Task[]): GenerateUntilTask[] {
  return tasks.filter((task): task is GenerateUntilTask => task.kind === 'generate_until');
}

/**
 * Translates every generate_until task's filter and metric patterns (RangeError for one with no JS
 * translation), so a run learns of it before the model is loaded, not after generating.
 */
export function checkGenerationTasks(tasks: readonly Task[]): void {
  for (const task of generateUntilTasks(tasks)) createGenerateUntilScorer(task);
}

/**
 * Checks every generate_until task's kwargs against the loaded model (sampling refused, max_gen_toks below the
 * max length: RangeError), before the scoring route spends any model time.
 */
export function checkGenerationFits(tasks: readonly Task[], maxLength: number, backend: ModelBackend = 'causal'): void {
  for (const task of generateUntilTasks(tasks)) planGeneration(task.generationKwargs, { encode: () => [], eosText: '', maxLength, backend });
}

/** Generates for the documents `keep` accepts of every generate_until task; none: nothing is loaded or run. */
export async function runGenerationRoute(
  model: LanguageModel,
  tasks: readonly Task[],
  requestsByTask: ReadonlyMap<string, TaskRequests>,
  keep: (taskName: string, docId: number) => boolean,
  options: GenerationRouteOptions,
): Promise<GenerationRouteResult> {
  const started = performance.now();
  const generating = generateUntilTasks(tasks);
  const requests = generating.flatMap((task) => generationRequestsOf(requestsByTask.get(task.name)).filter((request) => keep(task.name, request.docId)));
  if (requests.length === 0) return { outcomes: new Map(generating.map((task) => [task.name, []])), requests: 0, generatedTokens: 0, seconds: 0 };
  const tokenizer = model.requireTokenizer();
  const eosId = model.metadata.eosTokenId;
  // HFLM adds tokenizer.decode(eot_token_id) to every request's stop strings.
  const eosText = eosId !== null ? tokenizer.tokenText(eosId) : (model.metadata.eosToken ?? '');
  const generator = createTextGenerator(model, { batchSize: options.batchSize, onWarning: options.onWarning });
  let generatedTokens = 0;
  const encode = (text: string) => options.rules().encodePrompt(text);
  const hflm = { encode, eosText, maxLength: model.maxLength, backend: model.backend, decode: (ids: readonly number[]) => tokenizer.decode(ids) };
  const responses = await generateUntil(requests, generator, hflm, (progress) => {
    generatedTokens = progress.generatedTokens;
    options.onProgress?.({
      requestsDone: progress.finishedPrompts,
      requestsTotal: progress.totalPrompts,
      tokensDone: progress.generatedTokens,
      // How many tokens the rest will generate is unknown; the finished prompts' rate extrapolates it.
      tokensTotal: progress.generatedTokens,
      tokensTotalFinal: false,
      requestsTokenized: Math.max(1, progress.finishedPrompts),
      elapsedMs: performance.now() - started,
    });
  });
  const outcomes = new Map<string, DocOutcome[]>(generating.map((task) => [task.name, []]));
  requests.forEach((request, index) => {
    outcomes.get(request.taskName)?.push({ docId: request.docId, logliks: [], isGreedy: [], responses: [responses[index] ?? ''] });
  });
  return { outcomes, requests: requests.length, generatedTokens, seconds: (performance.now() - started) / 1000 };
}

function generationRequestsOf(requests: TaskRequests | undefined): readonly GenerateUntilRequest[] {
  return requests?.kind === 'generate_until' ? requests.requests : [];
}
