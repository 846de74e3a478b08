/**
 * `--output-path` as lm-eval's EvaluationTracker lays it out (loggers/evaluation_tracker.py, 0.4.x): a path
 * ending in `.json` gives `<stem>_<date>.json` with the samples beside it; any other path is a folder that gets
 * `<model_name_sanitized>/results_<date>.json` and `<model_name_sanitized>/samples_<task>_<date>.jsonl`, where
 * `<date>` is datetime.now().isoformat() with ':' replaced by '-'. Tools that glob lm-eval's output find ours.
 */
import path from 'node:path';
import { sampleHashes } from '../eval/sample-hashes.js';
import type { LoggedSample } from '../eval/samples.js';
import { sanitizeList } from '../text/python-repr.js';

export interface LmEvalOutputFiles {
  readonly results: string;
  samples(task: string): string;
}

export function lmEvalOutputFiles(outputPath: string, modelFolder: string, now: Date): LmEvalOutputFiles {
  const dateId = pythonIsoformat(now).replaceAll(':', '-');
  const target = path.resolve(outputPath);
  const isFile = path.extname(target) === '.json';
  const dir = isFile ? path.dirname(target) : path.join(target, modelFolder);
  return {
    results: isFile ? path.join(dir, `${path.basename(target, '.json')}_${dateId}.json`) : path.join(dir, `results_${dateId}.json`),
    samples: (task) => path.join(dir, `samples_${task}_${dateId}.jsonl`),
  };
}

/** datetime.now().isoformat(): local time, microseconds only when non-zero (milliseconds are all JS has). */
export function pythonIsoformat(now: Date): string {
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  const seconds = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
  const milliseconds = now.getMilliseconds();
  return milliseconds === 0 ? seconds : `${seconds}.${pad(milliseconds * 1000, 6)}`;
}

const RECORD_FIELDS = new Set(['doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter']);

/**
 * One line of a samples file as save_results_samples writes it: arguments as {gen_args_i: {arg_j}}, target as a
 * string, resps and filtered_resps through sanitize_list (every log-likelihood and greedy flag as Python's str
 * spells it: "-42.79022216796875", "False"), the filter and metric names, the three hashes, then the metric values.
 */
export function lmEvalSampleLine(sample: LoggedSample): string {
  const metrics = Object.keys(sample).filter((key) => !RECORD_FIELDS.has(key));
  const line = {
    doc_id: sample.doc_id,
    doc: sample.doc,
    target: String(sample.target),
    arguments: Object.fromEntries(
      sample.arguments.map((argument, index) => [`gen_args_${index}`, Object.fromEntries(argument.map((value, position) => [`arg_${position}`, value]))]),
    ),
    resps: sanitizeList(sample.resps),
    filtered_resps: sanitizeList(sample.filtered_resps),
    filter: sample.filter ?? 'none',
    metrics,
    ...sampleHashes(sample),
    ...Object.fromEntries(metrics.map((metric) => [metric, sample[metric]])),
  };
  return JSON.stringify(line);
}
