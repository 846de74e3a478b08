/**
 * Where config.json beside a model and the graph disagree. The graph is what runs; config.json is a claim a
 * submitter wrote (or forgot to update after pruning). A mismatch does not fail a check by itself, but each
 * figure that was taken from config.json is suspect once one is found, so every one is reported.
 */
import type { ModelShape } from '../graph/architecture.js';
import type { GraphFacts } from '../graph/graph-facts.js';
import type { HfArchitecture } from '../../model/hf-config.js';
import { formatCount } from '../units.js';

interface Comparison {
  readonly key: string;
  readonly stated: number | null;
  readonly found: number | null;
  readonly where: string;
}

export function compareConfigWithGraph(config: HfArchitecture | null, shape: ModelShape, facts: GraphFacts): string[] {
  if (config === null) return [];
  const widestFfn = shape.layers
    .map((layer) => (layer.projections.up ?? layer.projections.gate)?.outDim)
    .filter((width): width is number => width !== undefined);
  // KV heads are seen in a separate key projection's width over the config's head size (a fused QKV hides them).
  const keyWidths = shape.layers.map((layer) => layer.projections.k?.outDim).filter((width): width is number => width !== undefined);
  const graphKvHeads = keyWidths.length > 0 && Math.max(...keyWidths) % config.headDim === 0 ? Math.max(...keyWidths) / config.headDim : null;
  const comparisons: Comparison[] = [
    { key: 'vocab_size', stated: config.vocabSize, found: shape.vocab, where: "the graph's token embedding / LM head" },
    { key: 'hidden_size', stated: config.hiddenSize, found: shape.hidden, where: "the graph's hidden size" },
    { key: 'num_hidden_layers', stated: config.numLayers, found: shape.layers.length > 0 ? shape.layers.length : null, where: 'layers in the graph' },
    { key: 'intermediate_size', stated: config.intermediateSize, found: widestFfn.length > 0 ? Math.max(...widestFfn) : null, where: "the graph's widest FFN" },
    { key: 'num_attention_heads', stated: config.numHeads, found: facts.fusedHeads, where: "num_heads of the graph's attention ops" },
    {
      key: 'num_key_value_heads',
      stated: config.numKeyValueHeads,
      found: graphKvHeads,
      where: `the graph's widest key projection over head_dim ${config.headDim}`,
    },
    {
      key: 'max_position_embeddings',
      stated: config.maxPositions,
      found: facts.positionLimit?.rows ?? null,
      where: `rows of the graph's position table ${facts.positionLimit?.tensor ?? ''}`,
    },
  ];
  return comparisons
    .filter(({ stated, found }) => stated !== null && found !== null && stated !== found)
    .map(
      ({ key, stated, found, where }) =>
        `config.json states ${key} ${formatCount(stated!)}, but the graph has ${formatCount(found!)} (${where}); the graph is what runs`,
    );
}
