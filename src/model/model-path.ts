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
