/**
 * Requests as real lm-eval 0.4.13 built and scored them, recorded by scripts/lm_eval/record_0413_expectations.py's
 * RequestRecorder (stories260K, and the encoder-decoder fixtures through scripts/seq2seq/record_lm_eval.py): one JSON
 * line per request, prompts and context ids hashed to keep the files small.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface RecordedRequest {
  readonly task: string;
  readonly doc: number;
  readonly choice: number;
  readonly context_sha256: string;
  readonly context_length: number;
  readonly context_head: readonly number[];
  readonly context_ids_sha256: string;
  readonly continuation_ids: readonly number[];
  readonly loglik: number;
  readonly is_greedy: boolean;
}

/** As the recording script writes them: the first 16 hex digits of sha256. */
export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
export const idsSha256 = (ids: readonly number[]): string => sha256(ids.join(','));
export const requestKey = (task: string, doc: number, choice: number): string => `${task}/${doc}/${choice}`;

/** The recorded requests of a .jsonl file, by task/doc/choice. */
export function readRecordedRequests(file: string): Map<string, RecordedRequest> {
  return new Map(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as RecordedRequest)
      .map((row) => [requestKey(row.task, row.doc, row.choice), row]),
  );
}
