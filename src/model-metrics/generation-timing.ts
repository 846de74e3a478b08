/**
 * MLRB's tokens-per-second and latency benchmarks (agent_eval/benchmarks/tokens_per_second.py and latency.py,
 * as agent_eval/cli.py runs them on a Hugging Face or ORT model), measured through the generation contract
 * (src/generate/types.ts). Both time the same call, generate(prompt, max_length=200, temperature=0.8,
 * top_k=300, do_sample=True):
 *   tokens/s  10 warm-up runs, then 30 timed ones; generation stops at the model's EOS or when prompt + new
 *             tokens reach 200; the clock covers generate() AND decoding the whole output (prompt included,
 *             special tokens skipped); the count is the length of that text encoded again with the
 *             tokenizer's defaults (prompt and BOS included); each run gives count / seconds;
 *   latency   5 warm-up runs, then 10 timed ones, with EOS disabled: latency.py sets
 *             model.generation_config.eos_token_id = None before its calls (line 63), so every call generates
 *             200 − prompt tokens whatever the model would end on. The clock covers generate() only, in
 *             milliseconds; the summary is divided by 512 (latency.py's min_new_tokens, which its generate call
 *             never uses), so "ms per token" is one run's time / 512 whatever the number of tokens generated.
 * MLRB samples without a seed; here run i (warm-ups counted) samples with seed + i, so runs differ as they
 * do in MLRB and a measurement can be repeated token for token.
 *
 * An encoder-decoder: MLRB's scripts load AutoModelForCausalLM, which cannot load one, so there is no MLRB figure
 * to match; the same call on transformers' AutoModelForSeq2SeqLM is followed instead. Its max_length bounds the
 * decoder sequence, decoder_start_token_id included, so a run generates up to 199 tokens whatever the prompt, and
 * generate() returns the decoder's ids only: the text decoded and counted is the generated text alone.
 */
import { MlrbError } from '../errors.js';
import type { GenerationSettings, TextGenerator } from '../generate/types.js';
import { summarizeSample, type SampleSummary } from './sample-statistics.js';

export const MLRB_PROMPT = "Hello my name is Matt. I am getting in touch with you because i didn't get a response from you.";
/** generate(max_length=200): prompt and generated tokens together. */
export const MLRB_MAX_LENGTH = 200;
export const MLRB_TEMPERATURE = 0.8;
export const MLRB_TOP_K = 300;
/** latency.py divides every latency statistic by this (its GenerationConfig's min_new_tokens). */
export const MLRB_LATENCY_TOKENS = 512;
export const MLRB_TOKENS_PER_SECOND_RUNS = { warmupRuns: 10, timedRuns: 30 } as const;
export const MLRB_LATENCY_RUNS = { warmupRuns: 5, timedRuns: 10 } as const;

/** What the measurement needs from the model's tokenizer, with MLRB's (transformers') defaults. */
export interface GenerationTokenizer {
  /** tokenizer.encode(text): special tokens added as the tokenizer's post-processor adds them (BOS for Llama). */
  encodeWithSpecialTokens(text: string): readonly number[];
  /** tokenizer.decode(ids, skip_special_tokens=True). */
  decode(ids: readonly number[]): string;
}

/** A generator and its tokenizer: what the generation engine hands model-metrics. */
export interface GenerationSubject {
  readonly generator: TextGenerator;
  readonly tokenizer: GenerationTokenizer;
  /** Frees the engine's sessions; called once the measurements are done. */
  readonly dispose?: () => void;
  /** The model is an encoder-decoder: max_length bounds the decoder's sequence, and no prompt is returned. */
  readonly encoderDecoder?: boolean;
}

export interface RunCounts {
  readonly warmupRuns: number;
  readonly timedRuns: number;
}

export interface TimingOptions extends RunCounts {
  /** Prompt + new tokens at most (MLRB's max_length). */
  readonly maxLength: number;
  /** Run i samples with seed + i. */
  readonly seed: number;
  /** Milliseconds from a monotonic clock; default performance.now (timeit.default_timer's counterpart). */
  readonly now?: () => number;
  readonly onRun?: (run: { readonly phase: 'warmup' | 'timed'; readonly index: number; readonly total: number }) => void;
}

export interface GenerationProcedure {
  readonly prompt: string;
  readonly prompt_tokens: number;
  readonly max_length: number;
  readonly max_new_tokens: number;
  readonly temperature: number;
  readonly top_k: number;
  readonly seed: number;
  readonly warmup_runs: number;
  readonly timed_runs: number;
  /** Whether the model's EOS may end a run before max_length. */
  readonly eos: string;
}

export interface TokensPerSecondResult {
  readonly procedure: GenerationProcedure & { readonly timed: string; readonly counted: string };
  /** Tokens per second of each timed run, in run order. */
  readonly runs: number[];
  /** Tokens generated in each timed run (EOS included), for reading the runs. */
  readonly generated_tokens: number[];
  readonly summary: { readonly avg: number } & Omit<SampleSummary, 'mean'>;
}

export interface LatencyResult {
  readonly procedure: GenerationProcedure & { readonly timed: string; readonly divided_by: number };
  /** Milliseconds of each timed run. */
  readonly runs_ms: number[];
  readonly generated_tokens: number[];
  /** MLRB's figures: each statistic of the run times divided by 512. */
  readonly ms_per_token: {
    readonly avg: number;
    readonly median: number;
    readonly min: number;
    readonly max: number;
    readonly p90: number;
    readonly p95: number;
  };
}

interface PreparedRun {
  readonly promptIds: readonly number[];
  readonly procedure: GenerationProcedure;
  readonly settingsFor: (run: number) => GenerationSettings;
}

/**
 * Where generation may end before max_length: at the model's EOS (tokens per second, as transformers'
 * generate does), or only at max_length (latency, whose benchmark sets eos_token_id to None).
 */
type EndOfSequence = 'model-eos' | 'disabled';

function prepare(subject: GenerationSubject, options: TimingOptions, endOfSequence: EndOfSequence): PreparedRun {
  const promptIds = subject.tokenizer.encodeWithSpecialTokens(MLRB_PROMPT);
  // An encoder-decoder's decoder sequence starts with decoder_start_token_id, which max_length counts.
  const maxNewTokens = subject.encoderDecoder === true ? options.maxLength - 1 : options.maxLength - promptIds.length;
  if (maxNewTokens < 1) {
    throw new MlrbError('BAD_DATA', `MLRB's prompt encodes to ${promptIds.length} tokens, leaving no room under the max length ${options.maxLength}`, {
      promptTokens: promptIds.length,
      maxLength: options.maxLength,
    });
  }
  return {
    promptIds,
    procedure: {
      prompt: MLRB_PROMPT,
      prompt_tokens: promptIds.length,
      max_length: options.maxLength,
      max_new_tokens: maxNewTokens,
      temperature: MLRB_TEMPERATURE,
      top_k: MLRB_TOP_K,
      seed: options.seed,
      warmup_runs: options.warmupRuns,
      timed_runs: options.timedRuns,
      eos: endOfSequence === 'disabled' ? 'disabled (eos_token_id = None)' : "the model's EOS ends a run",
    },
    // Without eosTokenIds the engine stops at the model's EOS; an empty list never stops on a token.
    settingsFor: (run) => ({
      maxNewTokens,
      ...(endOfSequence === 'disabled' ? { eosTokenIds: [] } : {}),
      sampling: { temperature: MLRB_TEMPERATURE, topK: MLRB_TOP_K, seed: options.seed + run },
    }),
  };
}

async function generateOnce(subject: GenerationSubject, prepared: PreparedRun, run: number): Promise<Int32Array> {
  const settings = prepared.settingsFor(run);
  const [generation] = await subject.generator.generate([prepared.promptIds], settings);
  if (generation === undefined) throw new MlrbError('INTERNAL', 'the generator returned no generation for the prompt');
  // With EOS disabled only max_length ends a run; a shorter one is a generator that ignored the setting, and
  // its time would not be MLRB's latency.
  if (settings.eosTokenIds?.length === 0 && generation.tokenIds.length !== settings.maxNewTokens) {
    throw new MlrbError(
      'INTERNAL',
      `the generator stopped after ${generation.tokenIds.length} of ${settings.maxNewTokens} tokens with end-of-sequence disabled (${generation.finishReason})`,
      {
        generated: generation.tokenIds.length,
        maxNewTokens: settings.maxNewTokens,
      },
    );
  }
  return generation.tokenIds;
}

/**
 * Runs warm-ups (untimed) then timed runs; `timedRun` measures one run and returns what it recorded.
 * Runs are numbered across both phases, so every run samples with its own seed.
 */
async function runProtocol<Measured>(
  options: TimingOptions,
  warmup: (run: number) => Promise<unknown>,
  timedRun: (run: number) => Promise<Measured>,
): Promise<Measured[]> {
  checkCounts(options);
  for (let index = 0; index < options.warmupRuns; index += 1) {
    options.onRun?.({ phase: 'warmup', index, total: options.warmupRuns });
    await warmup(index);
  }
  const measured: Measured[] = [];
  for (let index = 0; index < options.timedRuns; index += 1) {
    options.onRun?.({ phase: 'timed', index, total: options.timedRuns });
    measured.push(await timedRun(options.warmupRuns + index));
  }
  return measured;
}

function checkCounts(counts: RunCounts): void {
  if (!Number.isInteger(counts.warmupRuns) || counts.warmupRuns < 0) throw new RangeError(`warm-up runs must be a whole number >= 0, got ${counts.warmupRuns}`);
  if (!Number.isInteger(counts.timedRuns) || counts.timedRuns < 1) throw new RangeError(`timed runs must be a whole number >= 1, got ${counts.timedRuns}`);
}

export async function measureTokensPerSecond(subject: GenerationSubject, options: TimingOptions): Promise<TokensPerSecondResult> {
  const now = options.now ?? (() => performance.now());
  const prepared = prepare(subject, options, 'model-eos');
  const seq2seq = subject.encoderDecoder === true;
  // generate()'s output: the prompt and its continuation, or an encoder-decoder's decoder sequence alone.
  const fullText = (generated: Int32Array): string => subject.tokenizer.decode(seq2seq ? [...generated] : [...prepared.promptIds, ...generated]);
  const runs = await runProtocol(
    options,
    async (run) => fullText(await generateOnce(subject, prepared, run)),
    async (run) => {
      const started = now();
      const generated = await generateOnce(subject, prepared, run);
      const text = fullText(generated);
      const seconds = (now() - started) / 1000;
      const counted = subject.tokenizer.encodeWithSpecialTokens(text).length;
      return { tokensPerSecond: counted / seconds, generated: generated.length };
    },
  );
  const values = runs.map((run) => run.tokensPerSecond);
  const { mean, ...rest } = summarizeSample(values, 'tokens per second');
  return {
    procedure: {
      ...prepared.procedure,
      timed: seq2seq
        ? "generate() and decoding its output (an encoder-decoder's decoder sequence, special tokens skipped)"
        : 'generate() and decoding the whole output (prompt included, special tokens skipped)',
      counted: seq2seq
        ? 'tokens of the decoded output encoded again with special tokens (the generated text alone)'
        : 'tokens of the decoded output encoded again with special tokens (prompt and BOS included)',
    },
    runs: values,
    generated_tokens: runs.map((run) => run.generated),
    summary: { avg: mean, ...rest },
  };
}

export async function measureLatency(subject: GenerationSubject, options: TimingOptions): Promise<LatencyResult> {
  const now = options.now ?? (() => performance.now());
  const prepared = prepare(subject, options, 'disabled');
  const runs = await runProtocol(
    options,
    (run) => generateOnce(subject, prepared, run),
    async (run) => {
      const started = now();
      const generated = await generateOnce(subject, prepared, run);
      return { ms: now() - started, generated: generated.length };
    },
  );
  const runsMs = runs.map((run) => run.ms);
  const summary = summarizeSample(runsMs, 'latency');
  const perToken = (value: number): number => value / MLRB_LATENCY_TOKENS;
  return {
    procedure: { ...prepared.procedure, timed: 'generate() only, in milliseconds', divided_by: MLRB_LATENCY_TOKENS },
    runs_ms: runsMs,
    generated_tokens: runs.map((run) => run.generated),
    ms_per_token: {
      avg: perToken(summary.mean),
      median: perToken(summary.median),
      min: perToken(summary.min),
      max: perToken(summary.max),
      p90: perToken(summary.p90),
      p95: perToken(summary.p95),
    },
  };
}
