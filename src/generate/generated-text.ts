/**
 * One prompt's generated ids and their text as they arrive, ended at the token that completes a stop string:
 * as transformers' generate(stop_strings=…) ends there, and its text is cut before the earliest stop string, as
 * lm-eval cuts at `until`. Each id costs a bounded decode (IncrementalDetokenizer) and a search of the text's new
 * end only, so a long generation is checked in linear time.
 */
import { IncrementalDetokenizer, type DecodeIds } from './incremental-detokenizer.js';
import { earliestStop, stopSearchStart } from './stop-strings.js';

export class GeneratedText {
  /** Only with stop strings: without them nothing reads the text before the end, which decodes it once. */
  private readonly detokenizer: IncrementalDetokenizer | undefined;
  private readonly plainIds: number[] = [];
  private readonly stopStrings: readonly string[];
  /** The longest stop string's length: how far before a change a stop string may start. */
  private readonly longestStop: number;
  /** Where the earliest stop string starts in the text, once one is there. */
  private stopAt = -1;

  /** Empty stop strings are ignored. */
  constructor(private readonly decode: DecodeIds, stopStrings: readonly string[]) {
    this.stopStrings = stopStrings.filter((stop) => stop !== '');
    this.longestStop = Math.max(0, ...this.stopStrings.map((stop) => stop.length));
    this.detokenizer = this.stopStrings.length > 0 ? new IncrementalDetokenizer(decode) : undefined;
  }

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
    if (this.detokenizer === undefined) return this.decode(this.plainIds);
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
      const searchFrom = stopSearchStart(detokenizer.push([ids[index]!]), this.longestStop);
      const at = earliestStop(detokenizer.textFrom(searchFrom), this.stopStrings);
      this.stopAt = at < 0 ? -1 : searchFrom + at;
      if (this.stopped) return index + 1;
    }
    return ids.length;
  }
}
