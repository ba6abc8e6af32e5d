import { system, toolResult } from "./constructors.js";
import type { Message } from "./message.js";

/** A transcript that uses every role and every content block kind. */
export const everyKindTranscript: Message[] = [
  system("You are terse."),
  {
    role: "user",
    name: "ada",
    content: [
      { type: "text", text: "Look at these" },
      { type: "image", source: { kind: "url", url: "https://example.com/cat.png" }, detail: "low" },
      { type: "image", source: { kind: "base64", data: "aGVsbG8=", mimeType: "image/png" } },
      { type: "json", value: { nested: [1, 2.5, null, true, "x", { deep: [] }] } },
    ],
  },
  {
    role: "assistant",
    id: "msg_1",
    content: [
      { type: "reasoning", text: "thinking...", signature: "sig==" },
      { type: "redacted_reasoning", data: "ENCRYPTED" },
      { type: "provider_extension", provider: "anthropic", value: { type: "server_tool_use", id: "x" } },
      { type: "text", text: "Calling tools." },
    ],
    toolCalls: [
      { id: "call_1", name: "search", arguments: { q: "cats", limit: 3 } },
      { id: "call_2", name: "lookup", arguments: {}, invalid: { raw: "{oops", error: "Unexpected token" } },
    ],
    usage: {
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      cacheReadTokens: 4,
      cacheWriteTokens: 0,
      reasoningTokens: 2,
      raw: { prompt_tokens: 10 },
    },
  },
  toolResult({ id: "call_1", name: "search" }, [{ type: "json", value: { hits: 3 } }]),
  toolResult({ id: "call_2", name: "lookup" }, "bad arguments", { isError: true }),
];
