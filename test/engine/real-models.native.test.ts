/** The real exporter's GPT-2 graph (int32 ids, stacked past_{i}, contrib ops) from ../shared. */
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadTokenizer } from '../../src/model/tokenizer.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { scoreRequests } from '../../src/eval/text-requests.js';
import { expectReferenceLogliks } from '../support/expect-reference.js';
import { randomModelInputs } from '../support/random-requests.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';
import path from 'node:path';

describe.skipIf(!hasShared)('tiny-random-gpt2-past (../shared)', () => {
  it('detects int32 ids, position_ids, mask and stacked past; metadata from genai_config.json', async () => {
    const model = await loadModel({ model: sharedPaths.gpt2Past });
    try {
      const roles = Object.fromEntries(model.signature.inputs.map((input) => [input.name, `${input.role}:${input.type}`]));
      expect(roles).toMatchObject({
        input_ids: 'input_ids:int32',
        position_ids: 'position_ids:int32',
        attention_mask: 'attention_mask:int32',
        past_0: 'past_stacked:float32',
      });
      expect(model.vocabSize).toBe(1000);
      expect(model.maxLength).toBe(512);
      expect(model.metadata.sources).toContain('genai_config.json');
      expect(model.prefixTokenId()).toBe(98);
    } finally {
      model.dispose();
    }
  });

  it('EXPECTED FAILURE – text from the 50,257-token tokenizer names the first out-of-range id', async () => {
    const model = await loadModel({ model: sharedPaths.gpt2Past });
    const tokenizer = loadTokenizer(path.join(path.dirname(sharedPaths.gpt2Past), 'tokenizer.json'));
    const context = 'The quick brown fox';
    const firstOutOfRange = tokenizer.encode(context).find((id) => id >= 1000);
    expect(firstOutOfRange).toBeDefined();
    try {
      await expect(scoreRequests(model, [{ taskName: 'probe', docId: 0, choiceIndex: 0, context, continuation: ' jumps' }])).rejects.toMatchObject({
        code: 'BAD_DATA',
        message: expect.stringContaining(`token id ${firstOutOfRange} is outside the model's vocabulary of 1000`),
      });
    } finally {
      model.dispose();
    }
  });

  it('token-id requests below 1,000 match the independent path', async () => {
    const model = await loadModel({ model: sharedPaths.gpt2Past, threads: 2 });
    const inputs = randomModelInputs(30, 1000, 40, 99);
    try {
      const { results } = await scoreModelInputs(model, inputs, { batchSize: 8 });
      await expectReferenceLogliks(sharedPaths.gpt2Past, inputs, results);
    } finally {
      model.dispose();
    }
  });
});
