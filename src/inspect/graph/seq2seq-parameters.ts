/**
 * The parameters of an encoder-decoder export, counted from storage as a causal model's are (parameters.ts): the
 * union of what its graphs store, loaded together. The graphs repeat tensors — the shared embedding in the encoder
 * and the decoder, the decoder's weights in the decoder with past, both branches' weights in a merged decoder — and
 * a repeat counts once only where its bytes equal the first one's. config.json's T5 formula (transformers'
 * num_parameters() of the model the config describes) is reported beside the count, as information: a config.json
 * can claim any sizes, the stored values are the model.
 */
import path from 'node:path';
import { isMlrbError } from '../../errors.js';
import { seq2seqGraphFiles, type Seq2SeqFiles } from '../../model/seq2seq-files.js';
import { describeShape } from './architecture.js';
import { readConfigParameters } from '../config/parameters.js';
import { readModelGraph } from './model-graph.js';
import { countStoredParameters, type CountedGraph, type ParameterTotals } from './parameters.js';

export interface Seq2SeqGraph extends CountedGraph {
  readonly file: string;
}

export interface Seq2SeqParameters extends ParameterTotals {
  /** What config.json's formula makes of the model (null, with the reason in `source`, when it cannot be counted): information only. */
  readonly config: { readonly total: number | null; readonly tiedEmbeddings: boolean | null; readonly source: string };
}

/** Every graph of the export, read (metadata only) with the shape its weights imply. */
export async function readSeq2SeqGraphs(files: Seq2SeqFiles): Promise<Seq2SeqGraph[]> {
  const graphs: Seq2SeqGraph[] = [];
  for (const file of seq2seqGraphFiles(files)) {
    const graph = await readModelGraph(file);
    graphs.push({ file, graph, shape: describeShape(graph) });
  }
  return graphs;
}

function configSays(folder: string): Seq2SeqParameters['config'] {
  const file = path.join(folder, 'config.json');
  try {
    const counted = readConfigParameters(file);
    return {
      total: counted.total,
      tiedEmbeddings: counted.tiedEmbeddings,
      source: `${file} (its formula, as transformers' num_parameters() counts the model it describes)`,
    };
  } catch (error) {
    if (!isMlrbError(error)) throw error;
    return { total: null, tiedEmbeddings: null, source: `not counted: ${error.message}` };
  }
}

export function countSeq2SeqParameters(files: Seq2SeqFiles, graphs: readonly Seq2SeqGraph[]): Seq2SeqParameters {
  return { ...countStoredParameters(graphs), config: configSays(files.folder) };
}
