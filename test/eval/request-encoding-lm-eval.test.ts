/**
 * mlrb-eval's encoding rules against real lm-eval's: the ids HFLM v0.4.8 (from its source) and v0.4.13 gave a
 * handful of requests on stories260K's tokenizer, with a model of each model_type (gemma, gemma2, llama), once with
 * the tokenizer's bos_token and once without it (prefix token EOS). Recorded by
 * scripts/lm_eval/record_encoding_rules.py into test/fixtures/lm-eval/encoding-rules/.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LmEvalVersion } from '../../src/eval/lm-eval-version.js';
import { addsBosForGemma, encodeRequest, encodingRulesFor } from '../../src/eval/request-encoding.js';
import { documentWindows } from '../../src/eval/rolling-windows.js';
import { loadTokenizer } from '../../src/model/tokenizer.js';
import { repoRoot } from '../support/shared-data.js';

interface RecordedCase {
  readonly tokenizer: string;
  readonly bos_token: string | null;
  readonly model_type: string;
  readonly add_bos_token: boolean | null;
  readonly prefix_token_id: number;
  readonly loglikelihood: readonly { context: string; continuation: string; context_ids: number[]; continuation_ids: number[] }[];
  readonly rolling: readonly { text: string; ids: number[] }[];
  readonly generate_until: readonly { context: string; ids: number[] }[];
}
interface Recording {
  readonly lm_eval: string;
  readonly tokenizer_json: string;
  readonly cases: readonly RecordedCase[];
}

const RELEASES: readonly (readonly [string, LmEvalVersion])[] = [
  ['0.4.8', '0.4.4-0.4.8'],
  ['0.4.13', '0.4.13'],
];

for (const [release, version] of RELEASES) {
  const recording = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'lm-eval', 'encoding-rules', `${release}.json`), 'utf8')) as Recording;
  const tokenizer = loadTokenizer(path.join(repoRoot, recording.tokenizer_json));

  describe(`request encoding as lm-eval ${release}'s HFLM encodes`, () => {
    it('the recording is of that release and covers Gemma, Gemma 2 and a non-Gemma model, with and without bos_token', () => {
      expect(recording.lm_eval).toBe(release);
      expect(new Set(recording.cases.map((entry) => entry.model_type))).toEqual(new Set(['gemma', 'gemma2', 'llama']));
      expect(new Set(recording.cases.map((entry) => entry.bos_token))).toEqual(new Set(['<s>', null]));
    });

    for (const recorded of recording.cases) {
      const facts = { modelType: recorded.model_type, bosToken: recorded.bos_token };
      const rules = encodingRulesFor(version, tokenizer, () => recorded.prefix_token_id, 'causal', facts);
      const label = `${recorded.model_type}, ${recorded.tokenizer}`;

      it(`${label}: add_bos_token as HFLM set it`, () => {
        expect(addsBosForGemma(version, facts)).toBe(recorded.add_bos_token === true);
      });

      it(`${label}: loglikelihood context and continuation ids`, () => {
        for (const request of recorded.loglikelihood) {
          expect(encodeRequest(request, rules), JSON.stringify(request.context)).toEqual({
            contextTokens: request.context_ids,
            continuationTokens: request.continuation_ids,
          });
        }
      });

      it(`${label}: a rolling document's ids (tok_encode)`, () => {
        for (const { text, ids } of recorded.rolling) {
          const windows = documentWindows(text, rules, 512);
          expect(windows.flatMap((window) => window.continuationTokens)).toEqual(ids);
          expect(windows[0]?.contextTokens).toEqual([recorded.prefix_token_id]);
        }
      });

      it(`${label}: a generation prompt's ids (tok_batch_encode)`, () => {
        for (const { context, ids } of recorded.generate_until) expect(rules.encodePrompt(context), JSON.stringify(context)).toEqual(ids);
      });
    }
  });
}
