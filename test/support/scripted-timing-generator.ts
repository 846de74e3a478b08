/**
 * A deterministic stand-in for the generation engine, for testing the model-metrics measurement protocol: a
 * word-level tokenizer, and a generator that follows a script (tokens per call, milliseconds per call) on a
 * manual clock, recording every call it gets. Nothing here samples or runs a model.
 */
import type { Generation, GenerationSettings, TextGenerator } from '../../src/generate/types.js';
import type { GenerationSubject, GenerationTokenizer } from '../../src/model-metrics/generation-timing.js';

export const FAKE_BOS = 1;
export const FAKE_EOS = 2;
const FIRST_WORD_ID = 10;

export class ManualClock {
  private ms = 0;
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Splits on spaces, one id per distinct word; BOS in front when encoding with special tokens. */
export class WordTokenizer implements GenerationTokenizer {
  private readonly ids = new Map<string, number>();
  private readonly words: string[] = [];

  constructor(
    private readonly clock: ManualClock,
    private readonly decodeMs: number,
  ) {}

  idOf(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = FIRST_WORD_ID + this.words.length;
      this.ids.set(word, id);
      this.words.push(word);
    }
    return id;
  }

  encodeWithSpecialTokens(text: string): number[] {
    return [
      FAKE_BOS,
      ...text
        .split(' ')
        .filter((word) => word !== '')
        .map((word) => this.idOf(word)),
    ];
  }

  decode(ids: readonly number[]): string {
    this.clock.advance(this.decodeMs);
    return ids
      .filter((id) => id >= FIRST_WORD_ID)
      .map((id) => this.words[id - FIRST_WORD_ID])
      .join(' ');
  }
}

export interface ScriptedCall {
  /**
   * Word tokens this call generates before its EOS (capped at maxNewTokens); EOS follows when there is room.
   * With EOS disabled (eosTokenIds []) the call goes on to maxNewTokens, as a model whose EOS is ignored does.
   */
  readonly tokens: number;
  readonly ms: number;
}

export class ScriptedGenerator implements TextGenerator {
  readonly calls: { readonly prompts: number[][]; readonly settings: GenerationSettings }[] = [];

  constructor(
    private readonly script: readonly ScriptedCall[],
    private readonly clock: ManualClock,
    private readonly tokenizer: WordTokenizer,
  ) {}

  async generate(prompts: readonly (readonly number[])[], settings: GenerationSettings): Promise<Generation[]> {
    const step = this.script[this.calls.length];
    if (step === undefined) throw new Error(`the script has ${this.script.length} calls; call ${this.calls.length + 1} was not expected`);
    this.calls.push({ prompts: prompts.map((prompt) => [...prompt]), settings });
    this.clock.advance(step.ms);
    const eosDisabled = settings.eosTokenIds?.length === 0;
    const words = eosDisabled ? settings.maxNewTokens : Math.min(step.tokens, settings.maxNewTokens);
    const ids = Array.from({ length: words }, (_, index) => this.tokenizer.idOf(`w${index}`));
    const stoppedByEos = words < settings.maxNewTokens;
    const tokenIds = Int32Array.from(stoppedByEos ? [...ids, FAKE_EOS] : ids);
    return prompts.map((prompt) => ({
      promptTokenCount: prompt.length,
      tokenIds,
      text: ids.map((id) => `w${id}`).join(' '),
      finishReason: stoppedByEos ? 'eos' : 'max_new_tokens',
    }));
  }
}

export function scriptedSubject(
  script: readonly ScriptedCall[],
  decodeMs: number,
): { subject: GenerationSubject; generator: ScriptedGenerator; clock: ManualClock } {
  const clock = new ManualClock();
  const tokenizer = new WordTokenizer(clock, decodeMs);
  const generator = new ScriptedGenerator(script, clock, tokenizer);
  return { subject: { generator, tokenizer }, generator, clock };
}
