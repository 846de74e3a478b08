/**
 * The top-level facts lm-eval 0.4.8 writes beside `results` (evaluator.simple_evaluate's git_hash and date,
 * loggers/utils.add_env_info and add_tokenizer_info, EvaluationTracker's GeneralConfigTracker and task_hashes),
 * filled with what is true of an mlrb-eval run. Fields that describe Hugging Face chat handling are written
 * with the values lm-eval writes when it is unused, so tools reading results files find every key.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { arch, cpus, platform, release } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CpuInfo, KernelPath } from '../native/binding.js';
import { lmEvalReleaseOf, type LmEvalVersion } from './lm-eval-version.js';

export interface LmEvalRunFacts {
  readonly git_hash: string | null;
  /** Unix time the run started, in seconds (lm-eval: time.time()). */
  readonly date: number;
  readonly pretty_env_info: string;
  readonly transformers_version: string;
  /** The lm-eval release whose numbers and file layout this run reproduces; `mlrb.tool_version` is what ran. */
  readonly lm_eval_version: string;
  readonly upper_git_hash: string | null;
  /** [token text, str(id)], with Python's "None" for an unknown id, as add_tokenizer_info writes them. */
  readonly tokenizer_pad_token: readonly [string | null, string];
  readonly tokenizer_eos_token: readonly [string | null, string];
  readonly tokenizer_bos_token: readonly [string | null, string];
  readonly eot_token_id: number | null;
  readonly max_length: number;
  /** Per task: sha256 over its samples' doc, prompt and target hashes; {} unless samples were logged. */
  readonly task_hashes: Readonly<Record<string, string>>;
  readonly model_source: string;
  readonly model_name: string;
  readonly model_name_sanitized: string;
  readonly system_instruction: null;
  readonly system_instruction_sha: null;
  /** false as 0.4.8 writes it unused, null as 0.4.13 does. */
  readonly fewshot_as_multiturn: false | null;
  readonly chat_template: null;
  readonly chat_template_sha: null;
  /** Seconds on a monotonic clock (lm-eval: time.perf_counter()); only their difference means anything. 0.4.13 drops both. */
  readonly start_time?: number;
  readonly end_time?: number;
  /** A string, as lm-eval writes it: str(end_time - start_time). */
  readonly total_evaluation_time_seconds: string;
}

/** Newest lm-eval release whose scores, task versions and results layout this tool reproduces (README). */
export const LM_EVAL_COMPATIBLE_VERSION = '0.4.8';

export interface TokenFacts {
  readonly text: string | null;
  readonly id: number | null;
}

export interface RunFactsInput {
  readonly modelSource: string;
  /** The model as the user named it (lm-eval: the `pretrained=` value). */
  readonly modelName: string;
  readonly startedAtUnixSeconds: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly environment: string;
  readonly bos: TokenFacts;
  readonly eos: TokenFacts;
  readonly maxLength: number;
  readonly taskHashes: Readonly<Record<string, string>>;
  /** Whose rules the run followed; `lm_eval_version` names that release (default '0.4.4-0.4.8': 0.4.8). */
  readonly lmEvalVersion?: LmEvalVersion;
}

export function lmEvalRunFacts(input: RunFactsInput): LmEvalRunFacts {
  const start = input.startMs / 1000;
  const end = input.endMs / 1000;
  const token = ({ text, id }: TokenFacts): readonly [string | null, string] => [text, id === null ? 'None' : String(id)];
  return {
    git_hash: toolGitHash(),
    date: input.startedAtUnixSeconds,
    pretty_env_info: input.environment,
    // lm-eval writes "N/A" when transformers is not importable; no Python library takes part in our runs.
    transformers_version: 'N/A',
    lm_eval_version: input.lmEvalVersion === undefined ? LM_EVAL_COMPATIBLE_VERSION : lmEvalReleaseOf(input.lmEvalVersion),
    upper_git_hash: null,
    // No padding token is used: rows are right-padded under an attention mask, whatever id fills them.
    tokenizer_pad_token: [null, 'None'],
    tokenizer_eos_token: token(input.eos),
    tokenizer_bos_token: token(input.bos),
    eot_token_id: input.eos.id,
    max_length: input.maxLength,
    task_hashes: input.taskHashes,
    model_source: input.modelSource,
    model_name: input.modelName,
    model_name_sanitized: sanitizeModelName(input.modelName),
    system_instruction: null,
    system_instruction_sha: null,
    fewshot_as_multiturn: false,
    chat_template: null,
    chat_template_sha: null,
    start_time: start,
    end_time: end,
    total_evaluation_time_seconds: String(end - start),
  };
}

/** lm_eval.utils.sanitize_model_name: runs of `"<>:/|\?*[]` become `__`. */
export function sanitizeModelName(name: string): string {
  return name.replace(/["<>:/|\\?*[\]]+/g, '__');
}

/**
 * The folder `--output-path DIR` writes into: lm-eval's sanitized model name, made visible. lm-eval names it
 * after the model argument as typed, so `../shared/models/stories260K` gives the hidden `..__shared__models__…`
 * (and `..` itself would climb out of DIR). Leading `./` and `../` steps name no part of the model, so they are
 * dropped first; a name that still starts with a dot loses its leading dots; and a model named by such steps
 * alone (`.`, `..`) goes by its absolute path, which lm-eval sanitizes to a visible `__…` name.
 */
export function outputFolderName(model: string): string {
  const visible = sanitizeModelName(model.replace(/^(\.\.?(\/+|$))+/, '')).replace(/^\.+/, '');
  return visible !== '' ? visible : sanitizeModelName(path.resolve(model));
}

/** One line per fact, as torch's collect_env does for a Python stack. */
export function environmentSummary(ortVersion: string, provider: string): string {
  const cpu = cpus()[0]?.model ?? 'unknown';
  return [
    `OS: ${platform()} ${release()} (${arch()})`,
    `Node.js version: ${process.versions.node}`,
    `ONNX Runtime version: ${ortVersion}`,
    `Execution provider: ${provider}`,
    `CPU: ${cpu} (${cpus().length} logical cores)`,
  ].join('\n');
}

/**
 * `mlrb.cpu`: the CPU, and whose float rounding the fused CPU attention followed (native/core/cpu_features.h).
 * A type, not an interface, so that it is a JsonValue.
 */
export type CpuRunFacts = {
  readonly model: string;
  /** The SIMD features that decide the path ('avx', 'fma', 'avx2', 'avx512f' …). */
  readonly features: readonly string[];
  /** The MLAS kernel family whose rounding the fused attention followed: 'avx512', 'avx2' or 'baseline'. */
  readonly kernel_path: KernelPath;
  /** The family ONNX Runtime's MLAS runs on this CPU; fused and unfused logliks agree bit for bit where the two match (and are not 'baseline'). */
  readonly mlas_path: KernelPath;
  /** kernel_path was set by MLRB_CPU_PATH. */
  readonly kernel_path_forced: boolean;
};

export function cpuRunFacts(cpu: CpuInfo): CpuRunFacts {
  return {
    model: cpu.model === '' ? (cpus()[0]?.model ?? 'unknown') : cpu.model,
    features: cpu.features,
    kernel_path: cpu.kernelPath,
    mlas_path: cpu.mlasPath,
    kernel_path_forced: cpu.forced,
  };
}

let cachedGitHash: string | null | undefined;
/**
 * The commit of the mlrb-eval checkout the code runs from (lm-eval records its own checkout's), read from
 * `.git` as lm-eval's get_commit_from_path does, plus packed refs; null for an installed package.
 */
export function toolGitHash(): string | null {
  if (cachedGitHash === undefined) cachedGitHash = checkoutCommit(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'));
  return cachedGitHash;
}

/** The commit checked out at `root`, read from its `.git` without running git; null when there is none. */
export function checkoutCommit(root: string): string | null {
  try {
    let gitDir = path.join(root, '.git');
    if (!existsSync(gitDir)) return null;
    // A worktree or submodule has a `.git` file saying `gitdir: <path>`.
    if (!existsSync(path.join(gitDir, 'HEAD'))) gitDir = path.resolve(root, readFileSync(gitDir, 'utf8').split('\n')[0]?.split(' ').at(-1) ?? '');
    const head = readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head;
    const ref = head.slice('ref: '.length);
    // A worktree's own folder holds only its HEAD; branches live in the folder its `commondir` file names.
    const commonDirFile = path.join(gitDir, 'commondir');
    const refsDir = existsSync(commonDirFile) ? path.resolve(gitDir, readFileSync(commonDirFile, 'utf8').trim()) : gitDir;
    const loose = path.join(refsDir, ref);
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    const packed = path.join(refsDir, 'packed-refs');
    const line = existsSync(packed)
      ? readFileSync(packed, 'utf8')
          .split('\n')
          .find((entry) => entry.endsWith(` ${ref}`))
      : undefined;
    return line?.split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

/** lm_eval.utils.hash_string. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
