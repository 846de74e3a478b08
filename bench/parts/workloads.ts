/** The request sets every scorer runs, tokenized once with the model's tokenizer (lm-eval's rules). */
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import { planRows } from '../../src/engine/collator.js';
import { buildModelInputs } from '../../src/eval/text-requests.js';
import type { ModelInput } from '../../src/engine/model-input.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadSuite } from '../../src/tasks/registry.js';
import { isMultipleChoice, type Suite } from '../../src/tasks/types.js';
import type { BenchModel } from '../models/bench-models.js';

export interface Workload {
  readonly name: string;
  readonly inputs: ModelInput[];
}

export interface WorkloadSizes {
  /** MMLU questions per subject (57 subjects). */
  readonly mmluPerSubject: number;
  /** BLiMP pairs per paradigm (67 paradigms). */
  readonly blimpPerParadigm: number;
}

export interface DataDirs {
  readonly mmluDir: string;
  readonly blimpDir: string;
}

export async function suiteInputs(model: BenchModel, suite: Suite): Promise<ModelInput[]> {
  const loaded = await loadModel({ model: model.modelPath });
  try {
    return buildModelInputs(
      loaded,
      suite.tasks.filter(isMultipleChoice).flatMap((task) => buildTaskRequests(task)),
      (index) => `request ${index}`,
    );
  } finally {
    loaded.dispose();
  }
}

export async function standardWorkloads(model: BenchModel, dirs: DataDirs, sizes: WorkloadSizes): Promise<Workload[]> {
  const mmlu = await loadSuite('mmlu', { dataDir: dirs.mmluDir, limit: sizes.mmluPerSubject });
  const blimp = await loadSuite('blimp', { dataDir: dirs.blimpDir, limit: sizes.blimpPerParadigm });
  return [
    { name: `MMLU 0-shot (57 subjects × ${sizes.mmluPerSubject})`, inputs: await suiteInputs(model, mmlu) },
    { name: `BLiMP (67 paradigms × ${sizes.blimpPerParadigm})`, inputs: await suiteInputs(model, blimp) },
  ];
}

/**
 * The rows any scorer must run at least once: identical inputs shared (lm-eval's logits cache) and inputs
 * that are prefixes of longer ones folded into them (a causal model computes their logits in the longer
 * pass). `scoredPositions` is the span of positions whose logits some request reads.
 */
export function uniqueRows(inputs: readonly ModelInput[]): { tokens: number; scoredPositions: number }[] {
  return planRows(inputs, { mergePrefixRows: true }).map((row) => ({ tokens: row.tokens.length, scoredPositions: row.scoredTail }));
}

/**
 * FLOPs of the useful work in a workload: each unique row once, no padding, projections and MLP at every
 * token, causal attention over the row's own prefix, and the LM head only at scored positions. In the last
 * layer only keys and values are needed at every token: nothing after its attention mixes positions, so
 * its queries, attention, output projection and MLP are needed only where a position is scored.
 */
export function usefulFlops(inputs: readonly ModelInput[], dims: BenchModel['dims']): number {
  const perLayerToken = 2 * (4 * dims.hidden * dims.hidden + 2 * dims.hidden * dims.mlp);
  const keyValueToken = 2 * 2 * dims.hidden * dims.hidden;
  return uniqueRows(inputs).reduce((sum, row) => {
    const earlierAttention = 2 * 2 * (dims.layers - 1) * dims.hidden * ((row.tokens * (row.tokens + 1)) / 2);
    const lastAttention = 2 * 2 * dims.hidden * row.tokens * row.scoredPositions; // scored positions sit at the row's end
    const layers = row.tokens * ((dims.layers - 1) * perLayerToken + keyValueToken) + row.scoredPositions * (perLayerToken - keyValueToken);
    return sum + layers + earlierAttention + lastAttention + row.scoredPositions * 2 * dims.hidden * dims.vocab;
  }, 0);
}
