/**
 * One prompt's generated ids and their text as they arrive, ended at the token that completes a stop string:
 * as transformers' generate(stop_strings=…) ends there, and its text is cut before the earliest stop string, as
 * lm-eval cuts at `until`. Each id costs a bounded decode (IncrementalDetokenizer) and a search of the text's new
 * end only, so a long generation is checked in linear time. The text is held to GENERATED_TEXT_CAP_CHARS
 * (text-bounds.ts) wherever it is decoded: after every id while stop strings are watched, else once at the end.
 */
import { MlrbError } from '../errors.js';
import { IncrementalDetokenizer, type DecodeIds } from './incremental-detokenizer.js';
import { earliestStop, stopSearchStart } from './stop-strings.js';
import { GENERATED_TEXT_CAP_CHARS, generatedTextTooLong } from './text-bounds.js';

export class GeneratedText {
  /** Only with stop strings: without them nothing reads the text before the end, which decodes it once. */
  private readonly detokenizer: IncrementalDetokenizer | undefined;
  private readonly plainIds: number[] = [];
  private readonly stopStrings: readonly string[];
  /** The longest stop string's length: how far before a change a stop string may start. */
  private readonly longestStop: number;
  /** Where the earliest stop string starts in the text, once one is there. */
  private stopAt = -1;

  /** Empty stop strings are ignored; `where` names the prompt in errors ("prompt 3"). */
  constructor(
    decode: DecodeIds,
    stopStrings: readonly string[],
    private readonly where = 'a prompt',
  ) {
    this.decode = (ids) => this.withPrompt(() => decode(ids));
    this.stopStrings = stopStrings.filter((stop) => stop !== '');
    this.longestStop = Math.max(0, ...this.stopStrings.map((stop) => stop.length));
    this.detokenizer = this.stopStrings.length > 0 ? new IncrementalDetokenizer(this.decode) : undefined;
  }

  private readonly decode: DecodeIds;

  /** Its text holds a stop string: it takes no more ids. */
  get stopped(): boolean {
    return this.stopAt >= 0;
  }

  /** The ids taken, up to the one that completed a stop string. */
  get ids(): readonly number[] {
    return this.detokenizer?.ids ?? this.plainIds;
  }

  /** The ids' text, cut before the earliest stop string. */
  get text(): string {
    if (this.detokenizer === undefined) return this.checked(this.decode(this.plainIds));
    const text = this.detokenizer.text;
    return this.stopped ? text.slice(0, this.stopAt) : text;
  }

  /** Takes ids in order until one completes a stop string; returns how many it took. */
  append(ids: ArrayLike<number>): number {
    if (this.stopped) return 0;
    const detokenizer = this.detokenizer;
    if (detokenizer === undefined) {
      for (let index = 0; index < ids.length; index += 1) this.plainIds.push(ids[index]!);
      return ids.length;
    }
    for (let index = 0; index < ids.length; index += 1) {
      // One id at a time: the stop string must be found at the very token that completes it.
      const changedFrom = detokenizer.push([ids[index]!]);
      this.checked(detokenizer);
      const searchFrom = stopSearchStart(changedFrom, this.longestStop);
      const at = earliestStop(detokenizer.textFrom(searchFrom), this.stopStrings);
      this.stopAt = at < 0 ? -1 : searchFrom + at;
      if (this.stopped) return index + 1;
    }
    return ids.length;
  }

  /** The text (or detokenizer) as is, unless it is longer than a generation's text may be. */
  private checked<Text extends { readonly length: number }>(text: Text): Text {
    if (text.length > GENERATED_TEXT_CAP_CHARS) throw generatedTextTooLong(this.where, text.length);
    return text;
  }

  /** A decode that the tokenizer refused (BAD_DATA: its text would not fit in a string) says which prompt it was. */
  private withPrompt<T>(run: () => T): T {
    try {
      return run();
    } catch (cause) {
      if (!(cause instanceof MlrbError)) throw cause;
      throw new MlrbError(cause.code, `the text generated for ${this.where}: ${cause.message}`, cause.details, { cause });
    }
  }
}
