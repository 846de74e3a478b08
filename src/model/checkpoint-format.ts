/**
 * Weights that are not an ONNX graph: a safetensors or PyTorch checkpoint, or a GGUF file. ONNX Runtime says
 * only "Protobuf parsing failed" of them, so the model's path is looked at first, and the error says how to
 * make the ONNX graph mlrb-eval scores. Recognised by their first bytes, not their names: an exporter's
 * `model.bin` may be anything. This only words the refusal; anything else that is not ONNX is refused by
 * ONNX Runtime as before.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';

export type CheckpointFormat = 'safetensors' | 'pytorch' | 'gguf';

/** How checkpoints are named in a Hugging Face model folder, for a folder that holds no .onnx file. */
const CHECKPOINT_NAME = /\.(safetensors|bin|pt|pth|ckpt|gguf)$/i;
const HEAD_BYTES = 16;

/** The checkpoint format of a regular file by its first bytes, or null for anything else (ONNX among it). */
export function checkpointFormatOf(file: string): CheckpointFormat | null {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) return null;
    const head = Buffer.alloc(HEAD_BYTES);
    const read = readSync(descriptor, head, 0, HEAD_BYTES, 0);
    return formatOfHead(head.subarray(0, read), stats.size);
  } catch {
    return null;
  } finally {
    closeSync(descriptor);
  }
}

function formatOfHead(head: Buffer, size: number): CheckpointFormat | null {
  if (head.length >= 4 && head.toString('latin1', 0, 4) === 'GGUF') return 'gguf';
  // torch.save since 1.6 writes a zip archive; before, a pickle that opens with PROTO (0x80) and its version.
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) return 'pytorch';
  if (head.length >= 2 && head[0] === 0x80 && (head[1] ?? 0) >= 2 && (head[1] ?? 0) <= 5) return 'pytorch';
  // safetensors: a little-endian u64 header length that fits the file, then the JSON header's '{'.
  if (head.length >= 9 && head[8] === 0x7b) {
    const headerBytes = head.readBigUInt64LE(0);
    if (headerBytes > 1n && headerBytes <= BigInt(Math.max(0, size - 8))) return 'safetensors';
  }
  return null;
}

/** The checkpoints in a model folder (by name, then by their bytes), sorted. */
export function checkpointsIn(folder: string, names: readonly string[]): { readonly file: string; readonly format: CheckpointFormat }[] {
  return names
    .filter((name) => CHECKPOINT_NAME.test(name))
    .sort()
    .flatMap((name) => {
      const format = checkpointFormatOf(path.join(folder, name));
      return format === null ? [] : [{ file: path.join(folder, name), format }];
    });
}

const OPTIMUM_TASK = 'text-generation-with-past';

/**
 * What to do with a checkpoint to score it: the optimum-cli command that exports a Hugging Face model folder
 * to the ONNX graph mlrb-eval reads (causal LM with KV cache), or for GGUF the conversion before it.
 */
export function onnxExportHint(format: CheckpointFormat, checkpoint: string): string {
  const folder = path.dirname(checkpoint);
  const out = `${folder}-onnx`;
  if (format === 'gguf') {
    return (
      `${checkpoint} is a GGUF file (llama.cpp's format), not an ONNX graph; mlrb-eval scores ONNX. Convert it to a Hugging Face ` +
      `model folder first (transformers reads GGUF: AutoModelForCausalLM.from_pretrained('${folder}', gguf_file='${path.basename(checkpoint)}') ` +
      `and AutoTokenizer likewise, then save_pretrained(HF_DIR) on both), then export that folder: ` +
      `optimum-cli export onnx --model HF_DIR --task ${OPTIMUM_TASK} ${out}`
    );
  }
  const what = format === 'safetensors' ? 'a safetensors checkpoint' : 'a PyTorch checkpoint';
  return (
    `${checkpoint} is ${what}, not an ONNX graph; mlrb-eval scores ONNX. Export the Hugging Face model folder it belongs to ` +
    `(config.json and tokenizer beside the weights) with optimum: optimum-cli export onnx --model ${folder} --task ${OPTIMUM_TASK} ${out}` +
    `, then score ${path.join(out, 'model.onnx')}`
  );
}
