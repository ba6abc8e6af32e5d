/** One piece of split output: answer text or reasoning. */
export interface SplitPiece {
  reasoning: boolean;
  text: string;
}

/** Options for {@link ThinkTagSplitter}. */
export interface ThinkTagSplitterOptions {
  /** Tag name (default `think`: `<think>` ... `</think>`). */
  tag?: string;
  /** The text starts inside a reasoning block (the template opened it in the prompt). */
  startsInReasoning?: boolean;
}

/**
 * Streaming-safe splitter of inline reasoning tags (`<think>...</think>`) out of answer text.
 *
 * Text can arrive in any fragments: a tag split across chunks (`<thi` + `nk>`) is held back
 * until it is complete, and look-alikes (`<thinker>`, `<th` followed by anything else) are
 * released as text as soon as they are disproven. Whitespace right after an opening or closing
 * tag is dropped (templates put a newline there). Several think blocks are supported.
 * Output depends only on the whole text, never on how it was split.
 */
export class ThinkTagSplitter {
  private readonly open: string;
  private readonly close: string;
  private inReasoning: boolean;
  private held = "";
  private trimLeading = false;

  constructor(options: ThinkTagSplitterOptions = {}) {
    const tag = options.tag ?? "think";
    this.open = `<${tag}>`;
    this.close = `</${tag}>`;
    this.inReasoning = options.startsInReasoning ?? false;
    this.trimLeading = this.inReasoning;
  }

  /** Split the next fragment; pieces are appended to `out` (empty pieces never are). */
  push(text: string, out: SplitPiece[]): void {
    let rest = this.held + text;
    this.held = "";
    for (;;) {
      if (this.trimLeading) {
        const trimmed = rest.replace(/^\s+/, "");
        if (trimmed === "") return;
        rest = trimmed;
        this.trimLeading = false;
      }
      const tag = this.inReasoning ? this.close : this.open;
      const at = rest.indexOf(tag);
      if (at === -1) {
        const keep = partialTagLength(rest, tag);
        this.emit(rest.slice(0, rest.length - keep), out);
        this.held = rest.slice(rest.length - keep);
        return;
      }
      this.emit(rest.slice(0, at), out);
      rest = rest.slice(at + tag.length);
      this.inReasoning = !this.inReasoning;
      this.trimLeading = true;
    }
  }

  /** End of input: release anything held back. */
  flush(out: SplitPiece[]): void {
    if (this.held !== "") this.emit(this.held, out);
    this.held = "";
  }

  private emit(text: string, out: SplitPiece[]): void {
    if (text === "") return;
    const last = out[out.length - 1];
    if (last !== undefined && last.reasoning === this.inReasoning) last.text += text;
    else out.push({ reasoning: this.inReasoning, text });
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagLength(text: string, tag: string): number {
  const max = Math.min(text.length, tag.length - 1);
  for (let length = max; length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
