/**
 * One prompt's generated ids and their text as they arrive, ended at the token that completes a stop string:
 * as transformers' generate(stop_strings=…) ends there, and its text is cut before the earliest stop string, as
 * lm-eval cuts at `until`. Each id costs a bounded decode (IncrementalDetokenizer) and a search of the text's new
 * end only, so a long generation is checked in linear time.
 */
import { IncrementalDetokenizer, type DecodeIds } from './incremental-detokenizer.js';
import { earliestStop, stopSearchStart } from './stop-strings.js';

export class GeneratedText {
  private readonly detokenizer: IncrementalDetokenizer;
  private readonly stopStrings: readonly string[];
  /** Where the earliest stop string starts in the text, once one is there. */
  private stopAt = -1;

  /** Empty stop strings are ignored. */
  constructor(decode: DecodeIds, stopStrings: readonly string[]) {
    this.detokenizer = new IncrementalDetokenizer(decode);
    this.stopStrings = stopStrings.filter((stop) => stop !== '');
  }

  /** Its text holds a stop string: it takes no more ids. */
  get stopped(): boolean {
    return this.stopAt >= 0;
  }

  /** The ids taken, up to the one that completed a stop string. */
  get ids(): readonly number[] {
    return this.detokenizer.ids;
  }

  /** The ids' text, cut before the earliest stop string. */
  get text(): string {
    const text = this.detokenizer.text;
    return this.stopped ? text.slice(0, this.stopAt) : text;
  }

  /** Takes ids in order until one completes a stop string; returns how many it took. */
  append(ids: ArrayLike<number>): number {
    if (this.stopped) return 0;
    if (this.stopStrings.length === 0) {
      this.detokenizer.push(Array.from(ids));
      return ids.length;
    }
    for (let index = 0; index < ids.length; index += 1) {
      // One id at a time: the stop string must be found at the very token that completes it.
      const searchFrom = stopSearchStart(this.detokenizer.push([ids[index]!]), this.stopStrings);
      const at = earliestStop(this.detokenizer.textFrom(searchFrom), this.stopStrings);
      this.stopAt = at < 0 ? -1 : searchFrom + at;
      if (this.stopped) return index + 1;
    }
    return ids.length;
  }
}
