/**
 * What the model-call bound tests share, on real loopback servers (the integration tier's
 * `providers/call-bounds.integration.test.ts`) and on virtual time (the harness's
 * `call-bounds-virtual-time.test.ts`): every HTTP adapter with the frames its wire format calls
 * keep-alive, progress and an unfinished frame, and the check of a bound's `timeout` error.
 */
import { expect } from "vitest";
import {
  AnthropicModel,
  type ChatModel,
  type FetchLike,
  OllamaModel,
  OpenAiChatModel,
  TinyAgentsError,
} from "../../src/index.js";

/** The bounds a model (or one call) can be given. */
export interface CallBounds {
  timeoutMs?: number;
  headersTimeoutMs?: number;
  streamIdleTimeoutMs?: number;
}

/** One HTTP adapter and the frames of its wire format. */
export interface BoundedAdapter {
  name: string;
  /** The adapter at `url` (a loopback server), through `fetch` when given (a fake server). */
  build(url: string, bounds: CallBounds, fetch?: FetchLike): ChatModel;
  contentType: string;
  /** A frame that is not progress (keep-alive), sent forever. */
  keepAlive: string;
  /** The start of a frame that never completes (trickled one byte at a time). */
  unfinished: string;
  /** A whole frame with data (progress), for the "steady but endless" case. */
  progress: string;
  /** What the stream sends first so the frames after it are valid (Anthropic's message_start). */
  preamble: string;
}

const withFetch = (fetch: FetchLike | undefined) => (fetch === undefined ? {} : { fetch });

/** The HTTP adapters whose calls the shared http layer bounds. */
export const BOUNDED_ADAPTERS: readonly BoundedAdapter[] = [
  {
    name: "OpenAI-compatible (SSE)",
    build: (url, bounds, fetch) =>
      new OpenAiChatModel({
        model: "m",
        baseUrl: `${url}/v1`,
        apiKey: "k-123456",
        ...bounds,
        ...withFetch(fetch),
      }),
    contentType: "text/event-stream",
    keepAlive: ": keep-alive\n\n",
    unfinished:
      'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"aaaa',
    progress:
      'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"}}]}\n\n',
    preamble: "",
  },
  {
    name: "Anthropic (SSE)",
    build: (url, bounds, fetch) =>
      new AnthropicModel({
        model: "claude-x",
        baseUrl: url,
        apiKey: "k-123456",
        env: {},
        ...bounds,
        ...withFetch(fetch),
      }),
    contentType: "text/event-stream",
    keepAlive: 'event: ping\ndata: {"type": "ping"}\n\n',
    unfinished:
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"aaaa',
    progress:
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\n',
    preamble:
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n' +
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  },
  {
    name: "Ollama (NDJSON)",
    build: (url, bounds, fetch) =>
      new OllamaModel({ model: "llama3.2", baseUrl: url, env: {}, ...bounds, ...withFetch(fetch) }),
    contentType: "application/x-ndjson",
    keepAlive: "\n",
    unfinished:
      '{"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"aaaa',
    progress:
      '{"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"a"},"done":false}\n',
    preamble: "",
  },
];

/**
 * Assert that `error` is the `timeout` of the bound `limit` set to `value` ms, and that its message
 * names the value and the `option` that changes it.
 */
export function expectTimeout(error: unknown, limit: string, value: number, option: string): TinyAgentsError {
  expect(TinyAgentsError.isInstance(error, "timeout")).toBe(true);
  const e = error as TinyAgentsError;
  expect(e.details).toMatchObject({ scope: "model_call", limit, value });
  expect(e.message).toContain(`${value} ms`);
  expect(e.message).toContain(`\`${option}\``);
  return e;
}
