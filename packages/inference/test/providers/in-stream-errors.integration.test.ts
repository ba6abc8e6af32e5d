/**
 * Errors that arrive inside a 200 stream keep their classification through every adapter: the
 * `error` item carries kind, retryability, retry-after and provider, and the `ProviderError` a
 * consumer throws for it (`collectStream`, or `invoke` reading a streamed body) is the one a
 * non-2xx response would have given — not "non_retryable, by unknown".
 */
import { describe, expect, it } from "vitest";
import {
  AnthropicModel,
  collectStream,
  type ModelRequest,
  OllamaModel,
  OpenAiChatModel,
  ProviderError,
  user,
} from "../../src/index.js";
import { useReplayServer } from "../support/replay.js";
import { drain } from "./parity.js";

const request: ModelRequest = { messages: [user("Hello")], maxTokens: 64 };
const SSE = { "content-type": "text/event-stream; charset=utf-8" };

const server = useReplayServer();

describe("in-stream errors keep kind, retry-after and provider", () => {
  it("openai: an {error} payload saying 'try again in 1.5s' is rate_limited with retryAfterMs 1500", async () => {
    const body =
      'data: {"error":{"message":"Rate limit reached for gpt-4.1-mini on tokens per min (TPM). Please try again in 1.5s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}\n\n';
    const model = new OpenAiChatModel({ model: "gpt-4.1-mini", baseUrl: `${server.url}/v1`, apiKey: "sk-x" });
    server.enqueue({ headers: SSE, body }, { headers: SSE, body });
    const { items } = await drain(model.stream(request));
    expect(items.at(-1)).toMatchObject({
      type: "error",
      kind: "rate_limited",
      retryable: true,
      retryAfterMs: 1500,
      provider: "openai",
      providerCode: "rate_limit_exceeded",
    });
    // A unary call answered with a stream (a proxy that streams anyway) throws the same error.
    const thrown = await model.invoke(request).catch((e: unknown) => e);
    expect(ProviderError.isProviderError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ kind: "rate_limited", retryAfterMs: 1500, provider: "openai" });
  });

  it("anthropic: a rate_limit_error event is rate_limited, keeps the hint and names anthropic", async () => {
    const body = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"Number of concurrent connections has exceeded your rate limit. Please try again in 2s."}}\n\n',
    ].join("");
    server.enqueue({ headers: SSE, body });
    const model = new AnthropicModel({ apiKey: "sk-ant-x", baseUrl: server.url, model: "claude-sonnet-4-6" });
    // A consumer that does not know the provider (like a plain accumulator) still gets it right.
    const thrown = await collectStream(model.stream(request)).catch((e: unknown) => e);
    expect(ProviderError.isProviderError(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      kind: "rate_limited",
      retryable: true,
      retryAfterMs: 2000,
      provider: "anthropic",
      providerCode: "rate_limit_error",
    });
  });

  it("anthropic: a cut stream is retryable and attributed to anthropic", async () => {
    server.enqueue({
      headers: SSE,
      body: 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
    });
    const model = new AnthropicModel({ apiKey: "sk-ant-x", baseUrl: server.url, model: "m" });
    const thrown = await collectStream(model.stream(request)).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ kind: "retryable", retryable: true, provider: "anthropic" });
  });

  it("ollama: an {error} line is retryable and attributed to ollama; a quota message is not retried", async () => {
    const line = (o: unknown) => `${JSON.stringify(o)}\n`;
    const start = line({
      model: "qwen3:8b",
      created_at: "2026-08-20T14:08:11.2Z",
      message: { role: "assistant", content: "Sure" },
      done: false,
    });
    const nd = { "content-type": "application/x-ndjson" };
    server.enqueue(
      {
        headers: nd,
        body: start + line({ error: "an error was encountered while running the model: unexpected EOF" }),
      },
      {
        headers: nd,
        body: start + line({ error: "you have exceeded your current quota, upgrade for higher limits" }),
      },
    );
    const model = new OllamaModel({ baseUrl: server.url, model: "qwen3:8b" });
    const crashed = await collectStream(model.stream(request)).catch((e: unknown) => e);
    expect(crashed).toMatchObject({ kind: "retryable", retryable: true, provider: "ollama" });
    const quota = await collectStream(model.stream(request)).catch((e: unknown) => e);
    expect(quota).toMatchObject({ kind: "quota_exhausted", retryable: false, provider: "ollama" });
  });
});
