/**
 * agent_eval's model metrics as its code measures them, file and line (ML-Research-Agent-Evals@382eddb,
 * agent_eval/), beside what modelMetrics() and the record do. The documentation table is rendered from this.
 */

export interface ModelMetricDefinition {
  readonly metric: string;
  /** Files and lines of agent_eval that define it. */
  readonly at: string;
  /** What agent_eval does, in short. */
  readonly agentEval: string;
  /** What mlrb-eval does, and where it differs. */
  readonly ours: string;
}

export const MODEL_METRIC_DEFINITIONS: readonly ModelMetricDefinition[] = [
  {
    metric: 'every metric',
    at: 'cli.py:54-74, 99; load_model.py:27-28, 44',
    agentEval:
      'every task and mini task runs latency, tokens_per_second, parameters, perplexity; the model is loaded in fp32 with AutoModelForCausalLM and never moved to a device (cli.py:99 picks one nothing uses), so its timings run on the CPU; pad_token = eos_token',
    ours: 'the same four on the ONNX export, measured where --provider says (default cpu); parameters always, the other three with --model-metrics (full tasks) or always (mini tasks)',
  },
  {
    metric: 'parameters',
    at: 'cli.py:108-113; parameters.py:17',
    agentEval: 'sum(p.numel() for p in model.parameters()): PyTorch counts a shared (tied) parameter once, and no buffers',
    ours: "model.parameters: the graph's weight tensors (inspect), a tied embedding once, unused initializers and graph scalars never",
  },
  {
    metric: 'tokens_per_second',
    at: 'cli.py:122-149; tokens_per_second.py:16, 18-29, 31-60',
    agentEval:
      'prompt "Hello my name is Matt. …" encoded with special tokens; generate(max_length=200, temperature=0.8, top_k=300, do_sample=True), stopping at EOS; 10 warm-ups, 30 timed runs; the clock covers generate and decode(skip_special_tokens=True); count = len(encode(decoded text)); mean, std, median, min, max, p90, p95',
    ours: "the same procedure and statistics (model_metrics.report.tokens_per_second); run i samples with seed + i where MLRB samples unseeded; a model's generation_config.json (top_p, repetition_penalty …), which transformers' generate would also apply, is not read; timed as the ONNX export runs, with its KV cache if it has one",
  },
  {
    metric: 'perplexity',
    at: 'cli.py:155; perplexity.py:31-38, 46-48, 54, 63-64, 71-76, 108-126',
    agentEval:
      'WikiText-2 raw test, rows joined with " \\n" for empty ones, tokenized whole; floor(tokens / 256) windows, each first token replaced by BOS; positions 128-254 predict 129-255 (127 per window); the reported figure is the mean of the running perplexities exp(nll / count) after each window',
    ours: 'the same (model_metrics.report.perplexity.mlrb.avg; .perplexity is exp of the mean NLL); agreement with transformers about 1e-7 relative',
  },
  {
    metric: 'latency',
    at: 'cli.py:167-180; latency.py:21, 52-63, 76-113, 121-126',
    agentEval:
      'model.generation_config.eos_token_id = None (63), so every call generates 200 − prompt tokens; the same generate call as tokens/s; 5 warm-ups, 10 timed runs, the clock around generate only; every statistic divided by 512 (min_new_tokens of a GenerationConfig its calls never use)',
    ours: 'the same, EOS disabled (model_metrics.report.latency.ms_per_token); a generator that stops early is an error; run i samples with seed + i; generation_config.json not read, as for tokens/s',
  },
];
