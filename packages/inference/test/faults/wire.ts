/**
 * Wire builders for the fault-injection tests: OpenAI Chat Completions chunks, SSE framing,
 * error bodies and the replay responses of every provider fault in the matrix. Shared by the
 * inference fault tests and the harness loop fault tests (not a test file itself).
 */
import type { ProviderFailureKind } from "@tinyagents/inference";
import type { ReplayResponse } from "../replay/replay-server.js";

/** The model id every fault scenario asks for. */
export const FAULT_MODEL = "gpt-fault-1";

const SSE_HEADERS = { "content-type": "text/event-stream" };
const JSON_HEADERS = { "content-type": "application/json" };

/** One `chat.completion.chunk` with the given `delta` (and optional finish reason / usage). */
export function chunk(
  delta: Record<string, unknown>,
  options: { finish?: string; usage?: Record<string, number> } = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: "chatcmpl-fault",
    object: "chat.completion.chunk",
    model: FAULT_MODEL,
    choices: [{ index: 0, delta, finish_reason: options.finish ?? null }],
  };
  if (options.usage !== undefined) out.usage = options.usage;
  return out;
}

/** Frame values as server-sent events (`data: <json>\n\n`), optionally ending with `[DONE]`. */
export function sse(values: readonly unknown[], done = true): string {
  const frames = values.map(
    (value) => `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`,
  );
  return frames.join("") + (done ? "data: [DONE]\n\n" : "");
}

/** The chunks of a streamed text answer: one delta per piece, then the finish chunk with usage. */
export function textChunks(pieces: readonly string[]): Record<string, unknown>[] {
  return [
    chunk({ role: "assistant", content: "" }),
    ...pieces.map((content) => chunk({ content })),
    chunk({}, { finish: "stop", usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 } }),
  ];
}

/** The chunks of a streamed answer asking for one tool call (arguments in fragments). */
export function toolCallChunks(id: string, name: string, args: string): Record<string, unknown>[] {
  const half = Math.floor(args.length / 2);
  return [
    chunk({
      role: "assistant",
      tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }),
    chunk({}, { finish: "tool_calls", usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 } }),
  ];
}

/** A 200 SSE response (what a streaming request gets, and what a unary one gets from lax servers). */
export function sseResponse(body: string, extra: Partial<ReplayResponse> = {}): ReplayResponse {
  return { status: 200, headers: SSE_HEADERS, body, ...extra };
}

/** A successful streamed text answer. */
export function textAnswer(text: string): ReplayResponse {
  return sseResponse(sse(textChunks([text.slice(0, 3), text.slice(3)])));
}

/** A successful streamed tool-call turn. */
export function toolTurn(id: string, name: string, args: Record<string, unknown>): ReplayResponse {
  return sseResponse(sse(toolCallChunks(id, name, JSON.stringify(args))));
}

/** An OpenAI-shaped JSON error response. */
export function errorResponse(
  status: number,
  error: { message: string; type?: string; code?: string | null },
  headers: Record<string, string> = {},
): ReplayResponse {
  return {
    status,
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ error: { type: null, code: null, param: null, ...error } }),
  };
}

/** The documented outcome of an HTTP status fault. */
export interface StatusFaultExpectation {
  /** `TinyAgentsError.code` of the final error. */
  code: "provider" | "context_overflow";
  kind: ProviderFailureKind;
  retryable: boolean;
  status: number;
  providerCode?: string;
  /** `ProviderError.retryAfterMs` (a retry waits exactly this long, capped by the policy). */
  retryAfterMs?: number;
  /** Words the message must contain (what to do about it). */
  messageIncludes: string;
}

/** One HTTP status fault of the matrix. */
export interface StatusFault {
  name: string;
  response: ReplayResponse;
  expect: StatusFaultExpectation;
}

/** Every HTTP status fault of the matrix, with its documented outcome. */
export const STATUS_FAULTS: readonly StatusFault[] = [
  {
    name: "400 bad request",
    response: errorResponse(400, {
      message: "Invalid value for 'temperature'",
      type: "invalid_request_error",
      code: "invalid_value",
    }),
    expect: {
      code: "provider",
      kind: "non_retryable",
      retryable: false,
      status: 400,
      providerCode: "invalid_value",
      messageIncludes: "fix it before retrying",
    },
  },
  {
    name: "400 context overflow",
    response: errorResponse(400, {
      message: "This model's maximum context length is 8192 tokens.",
      type: "invalid_request_error",
      code: "context_length_exceeded",
    }),
    expect: {
      code: "context_overflow",
      kind: "context_overflow",
      retryable: false,
      status: 400,
      providerCode: "context_length_exceeded",
      messageIncludes: "context window",
    },
  },
  {
    name: "401 bad key",
    response: errorResponse(401, {
      message: "Incorrect API key provided.",
      type: "invalid_request_error",
      code: "invalid_api_key",
    }),
    expect: {
      code: "provider",
      kind: "non_retryable",
      retryable: false,
      status: 401,
      providerCode: "invalid_api_key",
      messageIncludes: "Check the API key",
    },
  },
  {
    name: "404 unknown model",
    response: errorResponse(404, {
      message: `The model '${FAULT_MODEL}' does not exist`,
      type: "invalid_request_error",
      code: "model_not_found",
    }),
    expect: {
      code: "provider",
      kind: "non_retryable",
      retryable: false,
      status: 404,
      providerCode: "model_not_found",
      messageIncludes: "Check the model id",
    },
  },
  {
    name: "408 request timeout",
    response: errorResponse(408, { message: "Request timed out." }),
    expect: { code: "provider", kind: "retryable", retryable: true, status: 408, messageIncludes: "retry" },
  },
  {
    name: "409 conflict",
    response: errorResponse(409, { message: "Conflict, please retry." }),
    expect: { code: "provider", kind: "retryable", retryable: true, status: 409, messageIncludes: "retry" },
  },
  {
    name: "429 with retry-after",
    response: errorResponse(
      429,
      { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" },
      { "retry-after": "2" },
    ),
    expect: {
      code: "provider",
      kind: "rate_limited",
      retryable: true,
      status: 429,
      providerCode: "rate_limit_exceeded",
      retryAfterMs: 2000,
      messageIncludes: "retry after 2 s",
    },
  },
  {
    name: "429 with x-ratelimit-reset hints",
    response: errorResponse(
      429,
      { message: "Rate limit reached for tokens", type: "tokens", code: "rate_limit_exceeded" },
      { "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1.5s" },
    ),
    expect: {
      code: "provider",
      kind: "rate_limited",
      retryable: true,
      status: 429,
      providerCode: "rate_limit_exceeded",
      retryAfterMs: 1500,
      messageIncludes: "Rate limited",
    },
  },
  {
    name: "429 without retry hints",
    response: errorResponse(429, { message: "Too many requests", code: "rate_limit_exceeded" }),
    expect: {
      code: "provider",
      kind: "rate_limited",
      retryable: true,
      status: 429,
      providerCode: "rate_limit_exceeded",
      messageIncludes: "lower the request rate",
    },
  },
  {
    name: "429 quota exhausted",
    response: errorResponse(429, {
      message: "You exceeded your current quota, please check your plan and billing details.",
      type: "insufficient_quota",
      code: "insufficient_quota",
    }),
    expect: {
      code: "provider",
      kind: "quota_exhausted",
      retryable: false,
      status: 429,
      providerCode: "insufficient_quota",
      messageIncludes: "quota",
    },
  },
  {
    name: "500 server error",
    response: errorResponse(500, { message: "The server had an error", type: "server_error" }),
    expect: {
      code: "provider",
      kind: "upstream_unhealthy",
      retryable: true,
      status: 500,
      providerCode: "server_error",
      messageIncludes: "fall back",
    },
  },
  {
    name: "502 bad gateway (HTML)",
    response: {
      status: 502,
      headers: { "content-type": "text/html" },
      body: "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>",
    },
    expect: {
      code: "provider",
      kind: "upstream_unhealthy",
      retryable: true,
      status: 502,
      messageIncludes: "502 Bad Gateway",
    },
  },
  {
    name: "503 unavailable",
    response: errorResponse(503, { message: "Service unavailable", type: "service_unavailable" }),
    expect: {
      code: "provider",
      kind: "upstream_unhealthy",
      retryable: true,
      status: 503,
      providerCode: "service_unavailable",
      messageIncludes: "overloaded",
    },
  },
  {
    name: "529 overloaded",
    response: errorResponse(529, { message: "Overloaded", type: "overloaded_error" }),
    expect: {
      code: "provider",
      kind: "upstream_unhealthy",
      retryable: true,
      status: 529,
      providerCode: "overloaded_error",
      messageIncludes: "overloaded",
    },
  },
];
