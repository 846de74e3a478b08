/**
 * A TextGenerator whose "model" is a script: each prompt's continuation is looked up by the prompt's ids, so a
 * test states exactly what the engine returns and can read back every prompt and setting it was given. Its text
 * follows the contract (src/generate/types.ts): decoded ids, cut before the earliest stop string; it stops on
 * a stop string, on an EOS id or at maxNewTokens.
 */
import type { Generation, GenerationProgress, GenerationSettings, TextGenerator } from '../../src/generate/types.js';

/** What the script gives for one prompt: the ids it would generate, and how each decodes (special ones as ''). */
export interface ScriptedContinuation {
  readonly tokenIds: readonly number[];
  readonly decode: (id: number) => string;
}

export interface GenerateCall {
  readonly prompts: readonly (readonly number[])[];
  readonly settings: GenerationSettings;
}

export class FakeTextGenerator implements TextGenerator {
  readonly calls: GenerateCall[] = [];

  constructor(
    private readonly script: (prompt: readonly number[]) => ScriptedContinuation,
    private readonly eosTokenId: number,
  ) {}

  async generate(
    prompts: readonly (readonly number[])[],
    settings: GenerationSettings,
    onProgress?: (progress: GenerationProgress) => void,
  ): Promise<Generation[]> {
    this.calls.push({ prompts: prompts.map((prompt) => [...prompt]), settings });
    const eos = settings.eosTokenIds ?? [this.eosTokenId];
    const stops = (settings.stopStrings ?? []).filter((stop) => stop !== '');
    let generatedTokens = 0;
    return prompts.map((prompt, index) => {
      const { tokenIds, decode } = this.script(prompt);
      const kept: number[] = [];
      let text = '';
      let finishReason: Generation['finishReason'] = 'max_new_tokens';
      for (const id of tokenIds.slice(0, settings.maxNewTokens)) {
        kept.push(id);
        if (eos.includes(id)) {
          finishReason = 'eos';
          break;
        }
        text += decode(id);
        if (stops.some((stop) => text.includes(stop))) {
          finishReason = 'stop_string';
          break;
        }
      }
      const cut = Math.min(...stops.map((stop) => text.indexOf(stop)).filter((at) => at >= 0), text.length);
      generatedTokens += kept.length;
      onProgress?.({ finishedPrompts: index + 1, totalPrompts: prompts.length, generatedTokens });
      return { promptTokenCount: prompt.length, tokenIds: Int32Array.from(kept), text: text.slice(0, cut), finishReason };
    });
  }
}
