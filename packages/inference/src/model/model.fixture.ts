import { everyKindTranscript } from "../message/message.fixture.js";
import type { ModelRequest } from "./model-request.js";
import type { ModelResponse } from "./model-response.js";
import type { ModelStreamItem } from "./stream-item.js";

/** A request that sets every field. */
export const everyFieldRequest: ModelRequest = {
  messages: everyKindTranscript,
  tools: [
    {
      name: "search",
      description: "Search the web",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      strict: true,
    },
  ],
  toolChoice: { type: "tool", name: "search" },
  parallelToolCalls: true,
  responseFormat: {
    type: "json_schema",
    name: "answer",
    schema: { type: "object" },
    description: "d",
    strict: true,
  },
  model: "fast",
  modelHints: [{ model: "smart", priority: 2, reason: "hard question" }],
  reusePreviousModel: true,
  requiredCapabilities: { tools: true, vision: false, minContextWindow: 8000, minOutputTokens: 1000 },
  temperature: 0.2,
  topP: 0.9,
  maxTokens: 512,
  stop: ["END"],
  seed: 42,
  timeoutMs: 30_000,
  retry: { maxRetries: 2, initialBackoffMs: 100, maxBackoffMs: 2000 },
  responseCache: { enabled: true, ttlMs: 60_000 },
  promptCache: { enabled: true, key: "agent-v1", retention: "long" },
  cacheSegments: [
    { id: "system", role: "system", cacheable: true, messageCount: 1 },
    { id: "history", role: "history", cacheable: true, messageCount: 3 },
    { id: "tail", role: "volatile", cacheable: false, messageCount: 1 },
  ],
  promptFingerprint: "sha256:abc",
  tags: ["test"],
  metadata: { tenant: "t1", nested: { n: 1 } },
  providerOptions: { openai: { service_tier: "flex" } },
  reasoning: { effort: "high", budgetTokens: 2048, summary: "auto" },
};

/** A response with every field, `resolvedModel` and `servedFromCache` included. */
export const everyFieldResponse: ModelResponse = {
  message: {
    role: "assistant",
    id: "msg_9",
    content: [
      { type: "reasoning", text: "Let me think", signature: "sig" },
      { type: "text", text: "Here you go" },
    ],
    toolCalls: [{ id: "call_1", name: "search", arguments: { q: "x" } }],
  },
  usage: {
    inputTokens: 100,
    outputTokens: 20,
    totalTokens: 120,
    cacheReadTokens: 80,
    cacheWriteTokens: 0,
    reasoningTokens: 5,
    raw: { input_tokens: 20, cache_read_input_tokens: 80 },
  },
  finishReason: "tool_calls",
  raw: { id: "resp_1", object: "chat.completion" },
  resolvedModel: {
    name: "fast",
    provider: "openai",
    providerModelId: "gpt-4.1-mini",
    source: "fallback",
    requested: "smart",
    catalogEntry: { inputPerMillion: 0.4 },
    fallbackHistory: [{ name: "smart", error: "overloaded", code: "provider" }],
  },
  servedFromCache: false,
};

/** One stream item of every type. */
export const everyStreamItem: ModelStreamItem[] = [
  { type: "start", model: "gpt-4.1-mini", id: "msg_9" },
  { type: "reasoning_delta", text: "Let me", signature: "sig" },
  { type: "redacted_reasoning", data: "ENC" },
  { type: "text_delta", text: "Here" },
  { type: "tool_call_delta", index: 0, id: "call_1", name: "search", argumentsDelta: '{"q":' },
  { type: "usage", usage: everyFieldResponse.usage! },
  { type: "finish", finishReason: "tool_calls", raw: { done: true } },
  { type: "error", message: "overloaded", status: 529, providerCode: "overloaded_error", retryable: true },
];
