/**
 * The models of the generation section: the real-peer models without past (<name>/model.onnx, written by
 * scripts/bench/build_peer_models.py) and the same weights with past (<name>-kv/, written by
 * scripts/bench/build_generation_models.py in the layout transformers.js loads), with the bench's prompts
 * and transformers' greedy continuations of them (<name>-kv/generation-reference.json).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PEER_MODEL_NAMES, type PeerModelName } from './peer-models.js';

const tokenIds = z.array(z.number().int().nonnegative());
const greedyReferenceSchema = z
  .object({
    source: z.string(),
    maxNewTokens: z.number().int().positive(),
    prompts: z.array(tokenIds).min(1),
    greedy: z.array(tokenIds),
  })
  .refine((reference) => reference.greedy.length === reference.prompts.length, 'one greedy continuation per prompt')
  .refine((reference) => reference.prompts.every((prompt) => prompt.length === reference.prompts[0]?.length), 'prompts of one length (no padding)')
  .refine((reference) => reference.greedy.every((row) => row.length === reference.maxNewTokens), 'maxNewTokens ids per continuation');

export type GreedyReference = z.infer<typeof greedyReferenceSchema>;

export interface GenerationModel {
  readonly name: PeerModelName;
  /** The graph without past inputs. */
  readonly noPastPath: string;
  /** The folder transformers.js loads: config.json, tokenizer files, onnx/model.onnx with past. */
  readonly kvDir: string;
  /** The graph with past; config.json and the tokenizer files lie beside it too, where mlrb-eval looks. */
  readonly kvPath: string;
  readonly reference: GreedyReference;
}

export const GENERATION_MODEL_NAMES = PEER_MODEL_NAMES;

/** The model if both graphs and the reference exist, else the first missing file. */
export function findGenerationModel(root: string, name: PeerModelName): GenerationModel | { missing: string } {
  const noPastPath = path.join(root, name, 'model.onnx');
  const kvDir = path.join(root, `${name}-kv`);
  const kvPath = path.join(kvDir, 'onnx', 'model.onnx');
  const referencePath = path.join(kvDir, 'generation-reference.json');
  for (const needed of [noPastPath, kvPath, path.join(kvDir, 'config.json'), path.join(kvDir, 'onnx', 'config.json'), referencePath]) {
    if (!existsSync(needed)) return { missing: needed };
  }
  const reference = greedyReferenceSchema.parse(JSON.parse(readFileSync(referencePath, 'utf8')));
  return { name, noPastPath, kvDir, kvPath, reference };
}
