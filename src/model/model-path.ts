/**
 * MODEL as lm-eval users pass it: a model folder (what `pretrained=` names) or the ONNX file itself. A folder
 * resolves to its `model.onnx`, or else to its only `.onnx` file; several candidates are an error that lists
 * them, because picking one (a decoder beside a `decoder_with_past`, an fp16 copy) would score the wrong graph
 * without saying so.
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { GIT_LFS_POINTER_REASON, regularFileIsGitLfsPointer } from '../io/git-lfs-pointer.js';
import { checkpointFormatOf, checkpointsIn, onnxExportHint } from './checkpoint-format.js';
import { seq2seqFilesFor, seq2seqGraphFiles, type Seq2SeqFiles } from './seq2seq-files.js';

/** The file name exporters (optimum, transformers.js, onnxruntime-genai) give the main graph. */
const DEFAULT_MODEL_FILE = 'model.onnx';

/** The ONNX file `model` names (absolute); BAD_MODEL when there is none or the choice is ambiguous. */
export function resolveModelFile(model: string): string {
  const target = path.resolve(model);
  const stats = statOrNull(target);
  if (stats === null) throw new MlrbError('BAD_MODEL', `model file ${target} does not exist`, { file: target });
  if (!stats.isDirectory()) {
    if (!stats.isFile()) throw new MlrbError('BAD_MODEL', `model ${target} is not a regular file or a folder`, { file: target });
    return refuseNonOnnx(target);
  }
  const preferred = path.join(target, DEFAULT_MODEL_FILE);
  if (statOrNull(preferred)?.isFile()) return refuseNonOnnx(preferred);
  const names = readdirSync(target);
  const candidates = names.filter((name) => name.toLowerCase().endsWith('.onnx') && statOrNull(path.join(target, name))?.isFile()).sort();
  const [only, ...others] = candidates;
  if (only === undefined) {
    const [checkpoint] = checkpointsIn(target, names);
    const hint = checkpoint === undefined ? '' : `; ${onnxExportHint(checkpoint.format, checkpoint.file)}`;
    throw new MlrbError('BAD_MODEL', `model folder ${target} holds no .onnx file (expected ${DEFAULT_MODEL_FILE})${hint}`, { file: target });
  }
  if (others.length > 0) {
    throw new MlrbError(
      'BAD_MODEL',
      `model folder ${target} holds ${candidates.length} .onnx files and no ${DEFAULT_MODEL_FILE}: ${candidates.join(', ')}; name the file to score`,
      { file: target, candidates },
    );
  }
  return refuseNonOnnx(path.join(target, only));
}

/**
 * ONNX Runtime would say only "Protobuf parsing failed" of a pointer left by a clone without git-lfs, or of
 * weights in another format, so those are named here, with what to do.
 */
function refuseNonOnnx(modelFile: string): string {
  if (regularFileIsGitLfsPointer(modelFile)) throw new MlrbError('BAD_MODEL', `model file ${modelFile} ${GIT_LFS_POINTER_REASON}`, { file: modelFile });
  const format = checkpointFormatOf(modelFile);
  if (format !== null) throw new MlrbError('BAD_MODEL', onnxExportHint(format, modelFile), { file: modelFile, format });
  return modelFile;
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

/** What MODEL names: one graph, or an encoder-decoder export's graphs (src/model/seq2seq-files.ts). */
export interface ModelGraphs {
  /** The ONNX file, or the folder of an encoder-decoder export (lm-eval's pretrained=). */
  readonly path: string;
  /** Every graph the model runs, in load order. */
  readonly graphFiles: readonly string[];
  readonly seq2seq: Seq2SeqFiles | null;
}

/** The graphs `model` names (absolute); BAD_MODEL as resolveModelFile, or for a half encoder-decoder export. */
export function resolveModelGraphs(model: string): ModelGraphs {
  const seq2seq = seq2seqFilesFor(model);
  if (seq2seq !== null) return { path: seq2seq.folder, graphFiles: seq2seqGraphFiles(seq2seq), seq2seq };
  const file = resolveModelFile(model);
  return { path: file, graphFiles: [file], seq2seq: null };
}
