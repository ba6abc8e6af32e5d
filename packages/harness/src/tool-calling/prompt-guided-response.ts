import {
  type ContentBlock,
  type FinishItem,
  type ModelResponse,
  type ModelStreamItem,
  type ParsedToolCall,
  type ParseToolCallsOptions,
  parseToolCallsFromText,
  type ToolCall,
  ToolCallMarkupScrubber,
  text,
} from "@tinyagents/inference";

/** How prompt-guided replies are read back. */
export interface PromptToolParseOptions extends ParseToolCallsOptions {
  /** Id for each recovered call (the wrapper uses `ptc-...` ids). */
  generateId: () => string;
}

/**
 * Move the tool calls a model wrote as text (see `parseToolCallsFromText`) into
 * `message.toolCalls`, after any native calls, each with a fresh id from `generateId`. The text
 * blocks are replaced by ONE text block holding the remaining text (at the position of the first
 * text block; none when the remaining text is empty); other blocks (reasoning, ...) are kept.
 * A `stop` finish reason becomes `tool_calls` when calls were found. Returns a new response;
 * the result equals what accumulating {@link promptGuidedStream} over the same reply gives.
 */
export function applyPromptToolCalls(
  response: ModelResponse,
  options: PromptToolParseOptions,
): ModelResponse {
  const parsed = parseToolCallsFromText(text(response.message), options);
  const content: ContentBlock[] = [];
  let placed = false;
  for (const block of response.message.content) {
    if (block.type !== "text") content.push(block);
    else if (!placed) {
      placed = true;
      if (parsed.text !== "") content.push({ type: "text", text: parsed.text });
    }
  }
  const toolCalls = [...response.message.toolCalls, ...parsed.calls.map((call) => toToolCall(call, options))];
  const out: ModelResponse = { ...response, message: { ...response.message, content, toolCalls } };
  if (parsed.calls.length > 0 && (out.finishReason === undefined || out.finishReason === "stop")) {
    out.finishReason = "tool_calls";
  }
  return out;
}

/**
 * The streaming side of {@link applyPromptToolCalls}: text deltas pass through a
 * `ToolCallMarkupScrubber` (markup never reaches the consumer, even when split across deltas);
 * at the end of the stream the recovered calls are emitted as whole `tool_call_delta` items
 * (indexes after any native calls), then the `finish` item (held back until then; `stop` becomes
 * `tool_calls` when calls were found). Every other item passes through unchanged.
 */
export async function* promptGuidedStream(
  items: AsyncIterable<ModelStreamItem>,
  options: PromptToolParseOptions,
): AsyncGenerator<ModelStreamItem, void, undefined> {
  const scrubber = new ToolCallMarkupScrubber(options);
  let nextIndex = 0;
  let finish: FinishItem | undefined;
  for await (const item of items) {
    if (item.type === "text_delta") {
      const shown = scrubber.push(item.text);
      if (shown !== "") yield { type: "text_delta", text: shown };
    } else if (item.type === "finish") {
      finish = item;
    } else {
      if (item.type === "tool_call_delta") nextIndex = Math.max(nextIndex, item.index + 1);
      yield item;
    }
  }
  const rest = scrubber.flush();
  if (rest !== "") yield { type: "text_delta", text: rest };
  for (const call of scrubber.calls) {
    yield {
      type: "tool_call_delta",
      index: nextIndex++,
      id: options.generateId(),
      name: call.name,
      argumentsDelta: call.invalid === undefined ? JSON.stringify(call.arguments) : call.invalid.raw,
    };
  }
  if (finish !== undefined) {
    yield scrubber.calls.length > 0 && finish.finishReason === "stop"
      ? { ...finish, finishReason: "tool_calls" }
      : finish;
  }
}

function toToolCall(call: ParsedToolCall, options: PromptToolParseOptions): ToolCall {
  const out: ToolCall = { id: options.generateId(), name: call.name, arguments: call.arguments };
  if (call.invalid !== undefined) out.invalid = call.invalid;
  return out;
}
