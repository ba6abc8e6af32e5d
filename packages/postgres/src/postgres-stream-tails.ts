/** Streams whose tail one store remembers (least recently written forgotten first). */
const MAX_STREAMS = 4096;
/** Characters of remembered last lines, all streams together; a line over 1/64 of it is not kept. */
const MAX_LINE_CHARS = 1 << 20;

/**
 * What this process last committed to a stream: its next offset, its last line's offset field and,
 * if small enough and a writer of the stream checks lines (not an event journal), its last line.
 */
export interface StreamTail {
  next: number;
  /** The stream's last stored line; `undefined` when too large to remember or not needed. */
  last: string | undefined;
  /** The last line's numeric `offset` field (an event journal's record), kept whatever its size. */
  lastOffset: number | undefined;
}

/**
 * The tails of the streams this store committed to, so that its next append to one of them can be
 * written in one statement that also checks, on the stream's locked row, that nobody appended
 * since (a compare-and-set on `next_offset`). A remembered tail is only ever one that was
 * committed; when a write's outcome is unknown its streams are forgotten. A wrong guess costs the
 * slow path (lock, read the tail, check, append), never a wrong write. Bounded in streams and characters.
 */
export class StreamTails {
  private readonly tails = new Map<string, StreamTail>();
  private lineChars = 0;

  get(stream: string): StreamTail | undefined {
    return this.tails.get(stream);
  }

  /**
   * A committed append ended `stream` at offset `next - 1` with `last` (its `offset` field:
   * `lastOffset`); `last` undefined when no later append will check the line itself.
   */
  set(stream: string, next: number, last: string | undefined, lastOffset: number | undefined): void {
    this.forget(stream); // re-insert: the map keeps recently written streams last
    const keep = last !== undefined && last.length <= MAX_LINE_CHARS / 64 ? last : undefined;
    this.tails.set(stream, { next, last: keep, lastOffset });
    this.lineChars += keep?.length ?? 0;
    while (this.tails.size > MAX_STREAMS || this.lineChars > MAX_LINE_CHARS) {
      this.forget(this.tails.keys().next().value as string);
    }
  }

  /** What is stored for `stream` is no longer known (a failed or unknown write). */
  forget(stream: string): void {
    const tail = this.tails.get(stream);
    if (tail === undefined) return;
    this.lineChars -= tail.last?.length ?? 0;
    this.tails.delete(stream);
  }
}
