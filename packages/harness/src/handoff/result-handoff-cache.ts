import { type ContentBlock, validationError } from "@tinyagents/inference";
import type { RunContext } from "../contracts/run-context.js";
import type { ToolResult } from "../tool/tool.js";
import { resultSizeBytes } from "../tool/tool-result.js";

/** Options of a {@link ResultHandoffCache}. */
export interface ResultHandoffOptions {
  /** Results over this many UTF-8 bytes are offloaded (default 200,000 ≈ 50,000 tokens). */
  thresholdBytes?: number;
  /** Characters of the output kept inline as a preview (default 1,500). */
  previewChars?: number;
  /** Entries kept; the oldest is evicted first (default 8). */
  maxEntries?: number;
}

/** One page of an offloaded output. */
export interface HandoffPage {
  ref: string;
  text: string;
  offset: number;
  /** Total characters of the stored output. */
  total: number;
  /** True when this page reaches the end. */
  done: boolean;
}

/**
 * Keeps oversized tool outputs out of the transcript: `offload` replaces a result over the
 * threshold with a preview and a reference the model can page through (`read_handoff`). A
 * bounded FIFO: the oldest outputs are forgotten first, and reading a forgotten reference is a
 * clear error rather than stale data. In memory, per cache instance.
 */
export class ResultHandoffCache {
  readonly thresholdBytes: number;
  readonly previewChars: number;
  readonly maxEntries: number;
  private readonly entries = new Map<string, string>();
  private seq = 0;

  constructor(options: ResultHandoffOptions = {}) {
    this.thresholdBytes = positive(options.thresholdBytes ?? 200_000, "thresholdBytes");
    this.previewChars = positive(options.previewChars ?? 1_500, "previewChars");
    this.maxEntries = positive(options.maxEntries ?? 8, "maxEntries");
  }

  /** Store `text`; returns its reference (`handoff-{n}`). */
  put(text: string): string {
    const ref = `handoff-${++this.seq}`;
    this.entries.set(ref, text);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return ref;
  }

  /** The full stored text, or `undefined` when unknown or evicted. */
  get(ref: string): string | undefined {
    return this.entries.get(ref);
  }

  /** A page of the stored text. Throws `validation` for an unknown or evicted reference. */
  read(ref: string, offset = 0, length = this.previewChars * 4): HandoffPage {
    const text = this.entries.get(ref);
    if (text === undefined) {
      throw validationError(
        `handoff reference "${ref}" is unknown or expired (the cache keeps the last ${this.maxEntries} outputs); ` +
          "re-run the tool if you still need its output",
        { field: "ref" },
      );
    }
    const start = Math.max(0, Math.min(offset, text.length));
    const page = text.slice(start, start + Math.max(1, length));
    return { ref, text: page, offset: start, total: text.length, done: start + page.length >= text.length };
  }

  /**
   * `result` unchanged when its text/JSON payload is within the threshold; otherwise a copy whose
   * text and JSON blocks are replaced by a preview and the reference (other blocks are kept),
   * with a `handoff.offloaded` event on `run`.
   */
  offload(result: ToolResult, run?: RunContext<unknown>): ToolResult {
    const bytes = resultSizeBytes(result);
    if (bytes <= this.thresholdBytes) return result;
    const full = result.content
      .map((b) => (b.type === "text" ? b.text : b.type === "json" ? JSON.stringify(b.value) : ""))
      .filter((t) => t !== "")
      .join("\n");
    const ref = this.put(full);
    const note =
      `\n\n[output truncated: ${bytes} bytes in total, ${this.previewChars} characters shown. ` +
      `The full output is stored as handoff reference "${ref}"; call read_handoff with ` +
      `{"ref": "${ref}", "offset": ${this.previewChars}} to read more.]`;
    const kept: ContentBlock[] = result.content.filter((b) => b.type !== "text" && b.type !== "json");
    run?.emit({ type: "handoff.offloaded", callId: result.callId, toolName: result.toolName, bytes, ref });
    return { ...result, content: [{ type: "text", text: full.slice(0, this.previewChars) + note }, ...kept] };
  }
}

function positive(value: number, field: string): number {
  if (!Number.isFinite(value) || value < 1) {
    throw validationError(`ResultHandoffCache ${field} must be a number >= 1, got ${String(value)}`, {
      field,
    });
  }
  return Math.floor(value);
}
