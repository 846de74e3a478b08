/**
 * An encoder-decoder export as optimum writes it: encoder_model.onnx beside decoder_model.onnx (no past),
 * decoder_model.onnx + decoder_with_past_model.onnx (with past), or decoder_model_merged.onnx (merged; optimum
 * may also keep the two unmerged files beside it). Which files a folder holds tells the layout; a folder with only
 * part of an export (an encoder without a decoder, a decoder with past without the decoder it continues) is
 * refused by name rather than loaded as whatever graph happens to be there. The graphs themselves are checked
 * when they load (native/ort/seq2seq_signature.h).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { GIT_LFS_POINTER_REASON, regularFileIsGitLfsPointer } from '../io/git-lfs-pointer.js';

/** optimum's file names, one list for detection, refusals and docs. */
export const SEQ2SEQ_FILE_NAMES = {
  encoder: 'encoder_model.onnx',
  decoder: 'decoder_model.onnx',
  decoderWithPast: 'decoder_with_past_model.onnx',
  mergedDecoder: 'decoder_model_merged.onnx',
} as const;

export type Seq2SeqLayout = 'no-past' | 'with-past' | 'merged';

export interface Seq2SeqFiles {
  readonly folder: string;
  readonly layout: Seq2SeqLayout;
  readonly encoder: string;
  /** decoder_model.onnx, or decoder_model_merged.onnx for the merged layout. */
  readonly decoder: string;
  readonly decoderWithPast?: string;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** ONNX Runtime would say only "Protobuf parsing failed" of a pointer left by a clone without git-lfs. */
function refusePointer(file: string): string {
  if (regularFileIsGitLfsPointer(file)) throw new MlrbError('BAD_MODEL', `model file ${file} ${GIT_LFS_POINTER_REASON}`, { file });
  return file;
}

/**
 * The encoder-decoder export in `folder`, or null when it holds no encoder_model.onnx (optimum names a causal
 * LM's graphs decoder_model.onnx, decoder_with_past_model.onnx and decoder_model_merged.onnx too, so only the
 * encoder tells the kinds apart). With both decoder_model.onnx + decoder_with_past_model.onnx and the merged
 * decoder, the unmerged pair is used (it runs no If node). BAD_MODEL for a half export: an encoder without a
 * decoder, or a decoder with past without the decoder it continues.
 */
export function seq2seqFilesIn(folder: string): Seq2SeqFiles | null {
  const at = (name: string): string | undefined => (isFile(path.join(folder, name)) ? path.join(folder, name) : undefined);
  const encoder = at(SEQ2SEQ_FILE_NAMES.encoder);
  const decoder = at(SEQ2SEQ_FILE_NAMES.decoder);
  const withPast = at(SEQ2SEQ_FILE_NAMES.decoderWithPast);
  const merged = at(SEQ2SEQ_FILE_NAMES.mergedDecoder);
  if (encoder === undefined) return null;
  const present = [encoder, decoder, withPast, merged].flatMap((file) => (file === undefined ? [] : [path.basename(file)]));
  const half = (missing: string): MlrbError =>
    new MlrbError(
      'BAD_MODEL',
      `${folder} holds part of an encoder-decoder export (${present.join(', ')}) but no ${missing}; ` +
        `an encoder-decoder model needs ${SEQ2SEQ_FILE_NAMES.encoder} and ${SEQ2SEQ_FILE_NAMES.decoder} or ${SEQ2SEQ_FILE_NAMES.mergedDecoder}`,
      { file: folder, present },
    );
  if (decoder !== undefined && withPast !== undefined) {
    return { folder, layout: 'with-past', encoder: refusePointer(encoder), decoder: refusePointer(decoder), decoderWithPast: refusePointer(withPast) };
  }
  if (merged !== undefined) return { folder, layout: 'merged', encoder: refusePointer(encoder), decoder: refusePointer(merged) };
  if (withPast !== undefined) throw half(`${SEQ2SEQ_FILE_NAMES.decoder} for ${SEQ2SEQ_FILE_NAMES.decoderWithPast} to continue`);
  if (decoder === undefined) throw half(`decoder (${SEQ2SEQ_FILE_NAMES.decoder} or ${SEQ2SEQ_FILE_NAMES.mergedDecoder})`);
  return { folder, layout: 'no-past', encoder: refusePointer(encoder), decoder: refusePointer(decoder) };
}

/**
 * The export `model` names: its folder, or one of its files (the folder is meant: an encoder-decoder is all of
 * them). null when `model` is neither.
 */
export function seq2seqFilesFor(model: string): Seq2SeqFiles | null {
  const target = path.resolve(model);
  let stats;
  try {
    stats = statSync(target);
  } catch {
    return null;
  }
  if (stats.isDirectory()) return seq2seqFilesIn(target);
  const names: readonly string[] = Object.values(SEQ2SEQ_FILE_NAMES);
  return stats.isFile() && names.includes(path.basename(target)) ? seq2seqFilesIn(path.dirname(target)) : null;
}

/** Every graph file of the export, encoder first. */
export function seq2seqGraphFiles(files: Seq2SeqFiles): string[] {
  return [files.encoder, files.decoder, ...(files.decoderWithPast !== undefined ? [files.decoderWithPast] : [])];
}
