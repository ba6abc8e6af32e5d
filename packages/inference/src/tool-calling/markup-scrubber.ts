import type { ParsedToolCall, ParseToolCallsOptions } from "./parsed-tool-call.js";
import { type ScanSegment, ToolCallTextScanner } from "./text-call-scanner.js";
import { TextJoiner } from "./text-joiner.js";

/**
 * Hides tool-call markup from streamed text. Feed each text delta to {@link push} and show what
 * it returns; call {@link flush} at the end of the stream. Markup split across deltas
 * (`<tool_` + `call>`) is held back until it can be judged, so no piece of it is ever shown;
 * prose that only looked like the start of markup is released as soon as it is disproven.
 *
 * The calls the markup held are collected in {@link calls}. For the same text, the concatenation
 * of everything returned equals `parseToolCallsFromText(text, options).text` and {@link calls}
 * equals its `calls`, however the text was split.
 */
export class ToolCallMarkupScrubber {
  /** The tool calls found so far, in order. */
  readonly calls: ParsedToolCall[] = [];
  private readonly scanner: ToolCallTextScanner;
  private readonly joiner = new TextJoiner();
  private readonly segments: ScanSegment[] = [];
  private flushed = false;

  constructor(options: ParseToolCallsOptions = {}) {
    this.scanner = new ToolCallTextScanner(options);
  }

  /** Scrub the next text delta; returns the text to show now (often empty while markup is open). */
  push(text: string): string {
    if (this.flushed) return "";
    this.scanner.push(text, this.segments);
    return this.take();
  }

  /** End of the stream: judge anything held back and return the last text to show. */
  flush(): string {
    if (this.flushed) return "";
    this.flushed = true;
    this.scanner.end(this.segments);
    return this.take();
  }

  private take(): string {
    let out = "";
    for (const segment of this.segments) {
      if (segment.type === "text") out += this.joiner.text(segment.text);
      else {
        this.joiner.boundary();
        this.calls.push(...segment.calls);
      }
    }
    this.segments.length = 0;
    return out;
  }
}
