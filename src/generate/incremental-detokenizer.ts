/**
 * Decoded text of a growing id list at a bounded cost per token: the text is always exactly what decoding the whole
 * list gives, but each push decodes only a window of recent ids, as incremental detokenizers do.
 *
 * The text splits into a settled part (ids up to the last settled point, never decoded again) and a pending tail.
 * Each push decodes the window from `prefixOffset`: the last settled ids are decoded again as context, because
 * a tokenizer's decode is not a concatenation of its tokens' texts at the edges. Decoders strip the leading
 * space of the first token (SentencePiece's "▁"), clean-up rules join " ." into ".", bytes merge into UTF-8
 * characters across tokens (byte-level BPE, byte-fallback tokens like <0xE2>; the Rust tokenizers even decode
 * a byte-fallback run all or nothing). With the context in the window those edge effects fall inside it: the
 * window's text, less the context's own text, is the new text. Three guards keep that exact:
 * - Text whose end later ids may still rewrite stays pending rather than settled: a trailing U+FFFD may be an
 *   incomplete UTF-8 character that later bytes complete (or a byte-fallback run they turn into U+FFFDs), and a
 *   space among the last three characters may start a clean-up match (" n't", " ' ", " .") that removes it.
 * - A window whose text does not start with its context's text shows that new ids changed settled text anyway (a
 *   settled byte-fallback run turned invalid by the next byte): the settled text is dropped and the whole list
 *   decoded again. Rare with real models, and then O(n) once.
 * - The context starts only where decoding from there reproduces the tail of the text in context (so it merges
 *   with nothing before it) and holds at least CONTEXT_CHARACTERS characters: enough for the longest clean-up
 *   rule (" n't") and a stripped leading space.
 */

/** Decodes ids to text exactly as the full decode does (special tokens skipped or not, the same each call). */
export type DecodeIds = (ids: readonly number[]) => string;

/** Settled text kept as context before new ids; longer than any edge effect of the decoders above. */
const CONTEXT_CHARACTERS = 8;
const REPLACEMENT_CHARACTER = '\uFFFD';
/** Clean-up rules match a space and at most three characters after it (" n't"). */
const CLEAN_UP_REACH = 3;

/** Whether later ids may still rewrite the end of `text` (see the guards above). */
function endMayChange(text: string): boolean {
  return text.endsWith(REPLACEMENT_CHARACTER) || text.slice(-CLEAN_UP_REACH).includes(' ');
}

/** A point where the settled text may be split: ids before `offset` decode to `textLength` characters. */
interface SettledPoint {
  readonly offset: number;
  readonly textLength: number;
}

export class IncrementalDetokenizer {
  private readonly allIds: number[] = [];
  /** The settled text, in the pieces it settled in: joining on every push would copy it all each time. */
  private settledPieces: string[] = [];
  private settledLength = 0;
  private pending = '';
  /** The window decoded on each push starts here; the settled ids from here on are its context. */
  private prefixOffset = 0;
  /** decode(ids[prefixOffset:last settled point]) on its own. */
  private prefixText = '';
  /** Settled points from prefixOffset on, oldest first (the last ends the settled text): candidates for prefixOffset. */
  private points: SettledPoint[] = [{ offset: 0, textLength: 0 }];

  constructor(private readonly decode: DecodeIds) {}

  /** The ids pushed so far. */
  get ids(): readonly number[] {
    return this.allIds;
  }

  /** text.length, without joining the settled pieces. */
  get length(): number {
    return this.settledLength + this.pending.length;
  }

  /** Exactly decode(ids). */
  get text(): string {
    return this.settledPieces.join('') + this.pending;
  }

  /** text.slice(start), at a cost in the length returned rather than the whole text's. */
  textFrom(start: number): string {
    if (start >= this.settledLength) return this.pending.slice(start - this.settledLength);
    const pieces = [this.pending];
    let pieceStart = this.settledLength;
    for (let index = this.settledPieces.length - 1; pieceStart > start; index -= 1) {
      const piece = this.settledPieces[index]!;
      pieceStart -= piece.length;
      pieces.push(pieceStart >= start ? piece : piece.slice(start - pieceStart));
    }
    return pieces.reverse().join('');
  }

  /**
   * Appends ids and returns the index from which `text` may differ from the text before this push: everything
   * before it is unchanged (0 after a re-decode of the whole list).
   */
  push(ids: Iterable<number>): number {
    for (const id of ids) this.allIds.push(id);
    const unchangedBefore = this.settledLength;
    return this.advance() ? unchangedBefore : 0;
  }

  /** Decodes the window and settles what it can; false when settled text changed and all was decoded again. */
  private advance(): boolean {
    const window = this.decodeFrom(this.prefixOffset);
    if (!window.startsWith(this.prefixText)) {
      this.restart();
      this.advance();
      return false;
    }
    const newText = window.slice(this.prefixText.length);
    if (endMayChange(window)) {
      this.pending = newText;
      return true;
    }
    this.settledPieces.push(newText);
    this.settledLength += newText.length;
    this.pending = '';
    this.points.push({ offset: this.allIds.length, textLength: this.settledLength });
    this.moveContext(window);
    return true;
  }

  /**
   * Moves prefixOffset to the latest settled point with at least CONTEXT_CHARACTERS characters after it, if
   * decoding from there alone gives the same text as the window does in context; else the context grows.
   * `window` is decode(ids[prefixOffset:]) with every id settled.
   */
  private moveContext(window: string): void {
    let candidate = -1;
    for (let index = this.points.length - 2; index >= 1; index -= 1) {
      if (this.settledLength - this.points[index]!.textLength >= CONTEXT_CHARACTERS) {
        candidate = index;
        break;
      }
    }
    if (candidate >= 1) {
      const point = this.points[candidate]!;
      const alone = this.decodeFrom(point.offset);
      if (alone.length >= CONTEXT_CHARACTERS - 1 && window.endsWith(alone)) {
        this.prefixOffset = point.offset;
        this.prefixText = alone;
        this.points = this.points.slice(candidate);
        return;
      }
    }
    this.prefixText = window;
  }

  /** Forgets the settled text: the next window decodes the whole list. */
  private restart(): void {
    this.settledPieces = [];
    this.settledLength = 0;
    this.pending = '';
    this.prefixOffset = 0;
    this.prefixText = '';
    this.points = [{ offset: 0, textLength: 0 }];
  }

  private decodeFrom(offset: number): string {
    return offset >= this.allIds.length ? '' : this.decode(this.allIds.slice(offset));
  }
}
