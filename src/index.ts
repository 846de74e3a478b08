/** The public API of mlrb-eval. Everything else is internal and may change. */
export { evaluate, evaluateShard, type EvaluateResult } from './run/evaluate.js';
// Scale-out: shard I of N scores its documents (`shard` option); the merge rebuilds the unsharded run's results.
export { shardDocuments, parseShardSpec, type ShardSpec } from './run/shard.js';
export { readShardRecord, stringifyShardRecord, type ShardRecord } from './run/shard-record.js';
export { mergeShards, mergeShardFiles, type MergeShardsOptions, type MergedResult, type ShardFile } from './run/merge-shards.js';
// A merge cannot prove the shards' numbers came from the model; verifyShards re-scores a random sample of each.
export { verifyShards, type ShardVerification, type VerifyShardsOptions } from './run/verify-shards.js';
export { evaluateOptionsSchema, type EvaluateOptions } from './run/evaluate-options.js';
export { loadModel, type LanguageModel, type LoadModelOptions, DEFAULT_MAX_LENGTH } from './model/onnx-model.js';
export type { ModelMetadata } from './model/model-metadata.js';
export { PROVIDER_CHOICES, type ProviderChoice } from './model/execution-provider.js';
export type { CudaDeviceInfo } from './native/binding.js';
export { scoreModelInputs, type ScoreOptions, type ScoreOutput, type ScoreProgress, type ScoreStats } from './engine/score-requests.js';
export { scoreRequests, buildModelInputs, modelInputsFromTokens, type TextScoreOptions } from './eval/text-requests.js';
export { encodeRequest, encodingRulesFor, type EncodingFacts, type EncodingRules, type RuleTokenizer } from './eval/request-encoding.js';
export { modelInputFor, type ModelInput } from './engine/model-input.js';
export { LM_EVAL_VERSIONS, DEFAULT_LM_EVAL_VERSION, type LmEvalVersion } from './eval/lm-eval-version.js';
export type { LoglikelihoodRequest, RollingLoglikelihoodRequest, ScoringRequest, TokenWindowRequest } from './eval/instance.js';
export type { LoglikelihoodResult, TokenizedRequest } from './engine/model-input.js';
export { loadSuite, SUITE_NAMES, type SuiteName } from './tasks/registry.js';
export { listTaskNames, UnknownTaskError, type ListedTaskName } from './tasks/task-names.js';
export { defaultHubCacheDir } from './tasks/hub-cache.js';
export {
  isMultipleChoice,
  type GenerateUntilTask,
  type MultipleChoiceTask,
  type MultipleChoiceDoc,
  type RollingDoc,
  type RollingLoglikelihoodTask,
  type Suite,
  type Task,
  type TaskGroup,
  type TaskKind,
} from './tasks/types.js';
export { buildTask, type MultipleChoiceTaskSpec, type MultipleInputTaskSpec, type SingleInputTaskSpec } from './tasks/task-spec.js';
export type { LmEvalResults } from './eval/result-types.js';
export { MlrbError, isMlrbError, type ErrorCode } from './errors.js';
// Generation: token-id prompts through a loaded model (createTextGenerator), or prompt texts end to end (generate).
export type { FinishReason, Generation, GenerationProgress, GenerationSettings, SamplingSettings, TextGenerator } from './generate/types.js';
export { createTextGenerator, type TextGeneratorOptions } from './generate/text-generator.js';
export { generate, type GenerateResult } from './generate/generate.js';
export { generateOptionsSchema, type GenerateOptions } from './generate/generate-options.js';
// Edge-track checks (parameters, DRAM, quantization, pruning): the objects `inspect` / `check-pruning` print.
export * from './inspect/index.js';
// One verdict per edge track (`check-track`): the checks above that a track's rules need, findings labelled by check.
export { checkTrack, type TrackChecks, type TrackReport } from './inspect/track/track-check.js';
export { formatTrackReport } from './inspect/track/format.js';
export { TRACK_NAMES, trackCheckOptionsSchema, type TrackCheckOptions } from './inspect/track/options.js';
export { combineTrackVerdicts, TRACK_CHECK_NAMES, type TrackCheckName, type TrackFinding, type TrackVerdict } from './inspect/track/verdict.js';
export { PHI2_CONFIG_PATH } from './inspect/config/phi2-config.js';
export { runMlrbTask, type MlrbMathReasoningOptions, type MlrbRunOptions, type TrackRunOptions } from './mlrb/run-task.js';
export type { MlrbModelMetricsOptions } from './mlrb/model-metrics-run.js';
export { parseRunRecord, runRecordSchema, RUN_RECORD_SCHEMA, RUN_RECORD_SCHEMA_VERSION, type ModelMetricsSection, type RunRecord } from './mlrb/run-record.js';
export { MLRB_TASK_NAMES, mlrbTaskDefinition, resolveMlrbTask, type MlrbTaskDefinition, type MlrbTaskName } from './mlrb/tasks.js';
// MLRB's math reasoning (autoformalization into Lean 3): generation through a TextGenerator, ROUGE-L and BLEU
// against the references, optional Lean compile checks.
export { DEFAULT_LEAN_TIMEOUT_S, DEFAULT_MAX_NEW_TOKENS, DEFAULT_MAX_PROMPT_TOKENS } from './math-reasoning/defaults.js';
export {
  scoreMathReasoning,
  mathReasoningOptionsSchema,
  type MathReasoningOptions,
  type MathReasoningReport,
  type ProblemScore,
} from './math-reasoning/score.js';
export { DEFAULT_PROMPT_TEMPLATE, TEMPLATE_FIELDS } from './math-reasoning/prompt-template.js';
export { corpusBleu, tokenize13a, type BleuScore } from './math-reasoning/bleu.js';
export { rougeL, rougeTokenize, type RougeLScore, type RougeOptions } from './math-reasoning/rouge-l.js';
export { porterStem } from './math-reasoning/porter-stemmer.js';
export type { LeanOutcome } from './math-reasoning/lean-check.js';
export type { GenerationSession, OpenGeneratorOptions, OpenTextGenerator, PromptEncoder } from './math-reasoning/generator-source.js';
// MLRB's model metrics beside lm-eval: wikitext perplexity, tokens per second, latency (`model-metrics`).
export {
  modelMetrics,
  MODEL_METRICS_SCHEMA,
  MODEL_METRICS_SCHEMA_VERSION,
  type ModelMetricsReport,
  type PerplexityReport,
} from './model-metrics/model-metrics.js';
export {
  modelMetricsOptionsSchema,
  MODEL_METRIC_NAMES,
  type ModelMetricName,
  type ModelMetricsOptions,
  type ModelMetricsProgress,
  type GenerationSubjectFactory,
} from './model-metrics/model-metrics-options.js';
export type { GenerationSubject, GenerationTokenizer, TokensPerSecondResult, LatencyResult } from './model-metrics/generation-timing.js';
export type { PerplexityResult, MlrbPerplexitySummary } from './model-metrics/perplexity.js';
