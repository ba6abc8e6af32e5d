import { type Message, text, validationError } from "@tinyagents/inference";

/** What a summarizer gets besides the messages. */
export interface SummarizeContext {
  /** Aborts with the run. */
  signal?: AbortSignal;
  /** The summary these messages extend, when a conversation is summarized again. */
  previousSummary?: string;
}

/**
 * Turns older messages into a short text that stands in for them. Implementations must not
 * modify the messages. A thrown error is handled by the compression middleware's failure policy.
 */
export interface Summarizer {
  readonly name: string;
  summarize(messages: readonly Message[], context?: SummarizeContext): Promise<string>;
}

/** Options of {@link ConcatSummarizer}. */
export interface ConcatSummarizerOptions {
  /** Longest summary in characters (default 2,000); longer text is cut with an ellipsis marker. */
  maxChars?: number;
  /** Longest excerpt per message (default 200 characters). */
  maxCharsPerMessage?: number;
}

/**
 * An LLM-free summarizer: one line per message (`role: text`, tool calls as `-> name(args)`),
 * each cut to `maxCharsPerMessage`, the whole cut to `maxChars`, after the previous summary.
 * Deterministic; good for tests and as a cheap fallback. Throws `validation` for no messages.
 */
export class ConcatSummarizer implements Summarizer {
  readonly name = "concat";
  private readonly maxChars: number;
  private readonly maxCharsPerMessage: number;

  constructor(options: ConcatSummarizerOptions = {}) {
    this.maxChars = positive(options.maxChars ?? 2000, "maxChars");
    this.maxCharsPerMessage = positive(options.maxCharsPerMessage ?? 200, "maxCharsPerMessage");
  }

  async summarize(messages: readonly Message[], context: SummarizeContext = {}): Promise<string> {
    if (messages.length === 0) {
      throw validationError("ConcatSummarizer: nothing to summarize (no messages)", { field: "messages" });
    }
    const lines: string[] = [];
    if (context.previousSummary !== undefined && context.previousSummary !== "")
      lines.push(context.previousSummary);
    for (const message of messages) lines.push(cut(describe(message), this.maxCharsPerMessage));
    return cut(lines.join("\n"), this.maxChars);
  }
}

function describe(message: Message): string {
  const body = text(message).replace(/\s+/g, " ").trim();
  if (message.role === "assistant" && message.toolCalls.length > 0) {
    const calls = message.toolCalls.map((c) => `-> ${c.name}(${JSON.stringify(c.arguments)})`).join(" ");
    return `assistant: ${body === "" ? calls : `${body} ${calls}`}`;
  }
  if (message.role === "tool") return `tool ${message.toolName}${message.isError ? " (error)" : ""}: ${body}`;
  return `${message.role}: ${body}`;
}

function cut(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, Math.max(0, max - 1))}…`;
}

function positive(value: number, field: string): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw validationError(`ConcatSummarizer: ${field} must be a positive integer, got ${value}`, { field });
  }
  return value;
}
