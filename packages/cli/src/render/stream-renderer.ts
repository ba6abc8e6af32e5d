import type { EventRecord } from "@tinyagents/harness";
import type { CliOutput } from "../core/cli-io.js";
import { SecretSafeStream } from "../core/redacted-io.js";
import { formatArgs, formatDuration } from "./format.js";

/**
 * Draws a streaming run in the terminal: the top-level answer text as it arrives, one line per
 * tool call (arguments, outcome, duration), sub-agent and retry notes, and — only when the output
 * is a TTY — a transient progress line while a model or tool is working.
 */
export class StreamRenderer {
  private readonly out: CliOutput;
  private readonly tty: boolean;
  private atLineStart = true;
  private progressShown = false;
  private readonly toolArgs = new Map<string, unknown>();
  private readonly activeTools = new Set<string>();
  /** Whether any answer text was written. */
  wroteText = false;

  private prefix: string | undefined;
  /** Answer text held until a credential split across deltas can be masked whole. */
  private readonly answer = new SecretSafeStream();

  /** `answerPrefix` (e.g. `"ai> "`) is written before the first answer text of the run. */
  constructor(out: CliOutput, options: { answerPrefix?: string } = {}) {
    this.out = out;
    this.tty = out.isTTY === true;
    this.prefix = options.answerPrefix;
  }

  /** Handle one event of the run. */
  onRecord(record: EventRecord): void {
    const { event, depth } = record;
    const indent = "  ".repeat(depth + 1);
    switch (event.type) {
      case "model.started":
        this.progress(depth === 0 ? `… thinking (${event.model})` : `… sub-agent thinking (${event.model})`);
        break;
      case "model.text_delta":
        if (depth === 0 && event.text !== "") this.text(this.answer.push(event.text));
        break;
      case "model.completed":
      case "model.failed":
        if (depth === 0) this.text(this.answer.end());
        this.clearProgress();
        break;
      case "tool.started":
        this.toolArgs.set(event.callId, event.arguments);
        this.activeTools.add(event.toolName);
        this.progress(`… running ${[...this.activeTools].join(", ")}`);
        break;
      case "tool.progress":
        this.progress(`… ${event.toolName}: ${event.message}`);
        break;
      case "tool.completed":
      case "tool.failed": {
        this.activeTools.delete(event.toolName);
        const args = formatArgs(this.toolArgs.get(event.callId) ?? {});
        this.toolArgs.delete(event.callId);
        const outcome =
          event.type === "tool.failed"
            ? `failed: ${event.error.message}`
            : event.isError
              ? "returned an error"
              : "ok";
        this.line(`${indent}-> ${event.toolName}(${args}) ${outcome} in ${formatDuration(event.durationMs)}`);
        break;
      }
      case "tool.invalid_args":
        this.line(`${indent}!  ${event.toolName}: invalid arguments (${event.error})`);
        break;
      case "tool.unknown":
        this.line(`${indent}!  the model called an unknown tool "${event.toolName}"`);
        break;
      case "subagent.started":
        this.line(`${indent}=> sub-agent ${event.name} started`);
        break;
      case "subagent.completed":
        this.line(`${indent}<= sub-agent ${event.name} done (${event.usage.totalTokens} tokens)`);
        break;
      case "subagent.failed":
        this.line(`${indent}<= sub-agent ${event.name} failed: ${event.error.message}`);
        break;
      case "retry.scheduled":
        this.line(
          `${indent}!  retrying the model call in ${formatDuration(event.delayMs)} (${event.error.message})`,
        );
        break;
      case "fallback.selected":
        this.line(`${indent}!  falling back from ${event.from} to ${event.to}`);
        break;
      case "limit.reached":
        this.line(`${indent}!  limit reached: ${event.limit} (${event.count}/${event.value})`);
        break;
      default:
        break;
    }
  }

  /** End the answer's line and clear any progress line. */
  finish(): void {
    this.text(this.answer.end());
    this.clearProgress();
    if (!this.atLineStart) this.out.write("\n");
    this.atLineStart = true;
  }

  /** Write answer text (after the prefix, on the first). */
  private text(text: string): void {
    if (text === "") return;
    this.clearProgress();
    if (this.prefix !== undefined && this.atLineStart) this.out.write(this.prefix);
    this.prefix = undefined;
    this.out.write(text);
    this.atLineStart = text.endsWith("\n");
    this.wroteText = true;
  }

  private line(text: string): void {
    this.clearProgress();
    if (!this.atLineStart) this.out.write("\n");
    this.out.write(`${text}\n`);
    this.atLineStart = true;
  }

  private progress(text: string): void {
    if (!this.tty || !this.atLineStart) return;
    this.out.write(`\r\x1b[2K\x1b[2m${text}\x1b[0m`);
    this.progressShown = true;
  }

  private clearProgress(): void {
    if (!this.progressShown) return;
    this.out.write("\r\x1b[2K");
    this.progressShown = false;
  }
}
