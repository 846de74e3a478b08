/**
 * A deterministic TextGenerator for the math-reasoning pipeline tests: "tokens" are Unicode code points, the
 * encoder prepends a BOS id, and the answer for a prompt comes from a function of the prompt's text. It
 * honours maxNewTokens (cutting the answer, finish reason max_new_tokens) and records every call.
 */
import type { Generation, GenerationSettings, TextGenerator } from '../../src/generate/types.js';
import type { PromptEncoder } from '../../src/math-reasoning/generator-source.js';

export const FAKE_BOS = 1;

export const codePointEncoder: PromptEncoder = {
  encodeWithSpecialTokens: (text) => [FAKE_BOS, ...Array.from(text, (character) => character.codePointAt(0) ?? 0)],
};

export class ScriptedGenerator implements TextGenerator {
  readonly calls: { prompts: number[][]; settings: GenerationSettings }[] = [];

  constructor(private readonly answer: (promptText: string) => string) {}

  async generate(prompts: readonly (readonly number[])[], settings: GenerationSettings): Promise<Generation[]> {
    this.calls.push({ prompts: prompts.map((prompt) => [...prompt]), settings });
    return prompts.map((prompt) => {
      const text = String.fromCodePoint(...prompt.filter((id) => id !== FAKE_BOS));
      const full = Array.from(this.answer(text));
      const kept = full.slice(0, settings.maxNewTokens);
      return {
        promptTokenCount: prompt.length,
        tokenIds: Int32Array.from(kept, (character) => character.codePointAt(0) ?? 0),
        text: kept.join(''),
        finishReason: kept.length < full.length ? 'max_new_tokens' : 'eos',
      };
    });
  }
}
