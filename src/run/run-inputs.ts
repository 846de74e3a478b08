/**
 * A run's inputs, loaded together: the model's session is built on a native worker while the suites are read
 * here, so the two overlap. A data problem is still the error reported (and the model, once loaded, is let go);
 * a model problem surfaces after; a generate_until task that cannot fit the model is refused before any model
 * time.
 */
import { loadModel, type LanguageModel } from '../model/onnx-model.js';
import type { Suite, Task } from '../tasks/types.js';
import { requestedRewrites, type ResolvedEvaluateOptions } from './evaluate-options.js';
import { checkGenerationFits, checkGenerationTasks } from './generation-route.js';
import { loadSuites } from './load-suites.js';

export interface RunInputs {
  readonly model: LanguageModel;
  readonly suites: Suite[];
  readonly tasks: Task[];
}

/** The suites and their tasks, checked; on a data error the model being loaded is disposed once it is there. */
async function loadSuitesWhile(modelLoading: Promise<LanguageModel>, options: ResolvedEvaluateOptions): Promise<{ suites: Suite[]; tasks: Task[] }> {
  try {
    const suites = await loadSuites(options);
    const tasks = suites.flatMap((suite) => suite.tasks);
    checkGenerationTasks(tasks);
    return { suites, tasks };
  } catch (error) {
    modelLoading.then(
      (model) => model.dispose(),
      () => undefined,
    );
    throw error;
  }
}

export async function loadRunInputs(options: ResolvedEvaluateOptions): Promise<RunInputs> {
  const modelLoading = loadModel({
    model: options.model,
    config: options.config,
    tokenizer: options.tokenizer,
    maxLength: options.maxLength,
    threads: options.threads,
    provider: options.provider,
    ortLibrary: options.ortLibrary,
    rewrites: requestedRewrites(options),
    onLog: options.onLog,
    onWarning: options.onWarning,
  });
  // Handled here so a failed load is not an unhandled rejection while the data is still being read.
  modelLoading.catch(() => undefined);
  const { suites, tasks } = await loadSuitesWhile(modelLoading, options);
  const model = await modelLoading;
  try {
    checkGenerationFits(tasks, model.maxLength, model.backend);
  } catch (error) {
    model.dispose();
    throw error;
  }
  return { model, suites, tasks };
}
