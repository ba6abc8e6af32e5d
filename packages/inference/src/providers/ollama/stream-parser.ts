import { classifyProviderFailure } from "../../errors/classify.js";
import { isRetryableKind } from "../../errors/provider-error.js";
import { retryAfterFromHints } from "../../http/retry-hints.js";
import { isJsonObject, type JsonValue } from "../../json/json-value.js";
import type { ModelStreamItem, StreamErrorItem } from "../../model/stream-item.js";
import { ollamaToolCallId, readOllamaToolCall } from "./tool-calls.js";
import { mapOllamaDoneReason, normalizeOllamaUsage } from "./usage.js";

/**
 * Translates Ollama `/api/chat` NDJSON lines into {@link ModelStreamItem}s. Feed every parsed
 * line to {@link push}, then call {@link end} when the byte stream is over.
 *
 * - the first line -> `start` (model name);
 * - `message.thinking` -> `reasoning_delta`; `message.content` -> `text_delta` (empty ones skipped);
 * - each entry of `message.tool_calls` (whole calls, never fragments) -> ONE `tool_call_delta`
 *   with the next index, the id (synthesized from `salt` when missing, exactly as the unary
 *   parser does), the name and the arguments as JSON text;
 * - the `done: true` line -> `usage` and `finish` (`raw` = that line);
 * - an `{error: "..."}` line -> an `error` item, retryable unless it is a context overflow (a
 *   failure after the server accepted the request is the runner's, not the request's).
 * After `done` or an error, further lines are ignored.
 */
export class OllamaStreamParser {
  private readonly salt: number;
  private started = false;
  private finished = false;
  private calls = 0;

  /** `salt` is the request's message count (see `ollamaToolCallId`). */
  constructor(salt: number) {
    this.salt = salt;
  }

  /** True once the `done` line or an error arrived. */
  get done(): boolean {
    return this.finished;
  }

  /** Translate one NDJSON value. */
  push(line: JsonValue): ModelStreamItem[] {
    if (this.finished || !isJsonObject(line)) return [];
    if (typeof line.error === "string") return this.fail(streamErrorItem(line.error));
    const items: ModelStreamItem[] = [];
    if (!this.started) {
      this.started = true;
      items.push(typeof line.model === "string" ? { type: "start", model: line.model } : { type: "start" });
    }
    const message = isJsonObject(line.message) ? line.message : {};
    if (typeof message.thinking === "string" && message.thinking !== "") {
      items.push({ type: "reasoning_delta", text: message.thinking });
    }
    if (typeof message.content === "string" && message.content !== "") {
      items.push({ type: "text_delta", text: message.content });
    }
    if (Array.isArray(message.tool_calls)) {
      for (const entry of message.tool_calls) {
        const parts = readOllamaToolCall(entry);
        if (parts === undefined) continue;
        const index = this.calls++;
        items.push({
          type: "tool_call_delta",
          index,
          id:
            parts.id !== "" ? parts.id : ollamaToolCallId(this.salt, index, parts.name, parts.argumentsText),
          name: parts.name,
          argumentsDelta: parts.argumentsText,
        });
      }
    }
    if (line.done === true) {
      this.finished = true;
      items.push({ type: "usage", usage: normalizeOllamaUsage(line) });
      items.push({
        type: "finish",
        finishReason: mapOllamaDoneReason(line.done_reason, this.calls > 0),
        raw: line,
      });
    }
    return items;
  }

  /** Call when the byte stream ended: a retryable `error` item when no `done` line arrived. */
  end(): ModelStreamItem[] {
    if (this.finished) return [];
    return this.fail({
      type: "error",
      message:
        "Ollama stream ended before its done line (the connection was cut or the server stopped); the answer is incomplete, retry the call",
      retryable: true,
    });
  }

  private fail(item: StreamErrorItem): ModelStreamItem[] {
    this.finished = true;
    item.provider ??= "ollama";
    return [item];
  }
}

function streamErrorItem(message: string): StreamErrorItem {
  const text = `Ollama stream error: ${message}`;
  const classified = classifyProviderFailure({ message: text });
  // Anything but an overflow or an exhausted quota is worth another try: a mid-stream failure
  // is usually the runner crashing or being unloaded.
  const kind =
    classified === "context_overflow" || classified === "quota_exhausted" || isRetryableKind(classified)
      ? classified
      : "retryable";
  const item: StreamErrorItem = { type: "error", message: text, retryable: isRetryableKind(kind), kind };
  const retryAfterMs = retryAfterFromHints(new Headers(), message, Date.now());
  if (retryAfterMs !== undefined) item.retryAfterMs = retryAfterMs;
  return item;
}
