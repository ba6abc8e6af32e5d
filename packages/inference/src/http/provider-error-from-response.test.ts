import { describe, expect, it } from "vitest";
import { ProviderError } from "../errors/provider-error.js";
import { errorBodyFacts } from "./error-body.js";
import { providerErrorFromResponse, RAW_BODY_LIMIT } from "./provider-error-from-response.js";

const KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";

function response(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers });
}

async function errorOf(status: number, body: string, headers: Record<string, string> = {}, model?: string) {
  const error = await providerErrorFromResponse(response(status, body, headers), {
    provider: "p",
    model,
    secrets: [KEY],
    nowMs: Date.UTC(2025, 0, 1, 12, 0, 0),
  });
  expect(ProviderError.isProviderError(error)).toBe(true);
  return error;
}

describe("errorBodyFacts", () => {
  it.each([
    [
      "OpenAI",
      '{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}',
      { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
    ],
    [
      "Anthropic",
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}',
      { message: "Overloaded", type: "overloaded_error" },
    ],
    [
      "Ollama",
      '{"error":"model \\"x\\" not found, try pulling it first"}',
      { message: 'model "x" not found, try pulling it first' },
    ],
    [
      "Mistral",
      '{"object":"error","message":"Tool call id was abc but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_request_error","param":null,"code":null}',
      {
        message: "Tool call id was abc but must be a-z, A-Z, 0-9, with a length of 9.",
        type: "invalid_request_error",
      },
    ],
    [
      "llama.cpp",
      '{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens)","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}',
      { code: "400", type: "exceed_context_size_error" },
    ],
    [
      "FastAPI",
      '{"detail":[{"loc":["body","model"],"msg":"field required"}]}',
      { message: "body.model: field required" },
    ],
    ["array", '[{"error":{"message":"bad","code":"x"}}]', { message: "bad", code: "x" }],
    ["text", "upstream connect error\n", { message: "upstream connect error" }],
    [
      "HTML",
      "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
      { message: "502 Bad Gateway" },
    ],
    [
      "HTML without title",
      "<html><body><h1>Oops &amp; sorry</h1></body></html>",
      { message: "Oops & sorry" },
    ],
    ["empty", "  ", {}],
  ])("%s", (_name, body, facts) => {
    expect(errorBodyFacts(body)).toMatchObject(facts);
  });
});

describe("providerErrorFromResponse", () => {
  it("OpenAI 429 with x-ratelimit-reset Go durations", async () => {
    const error = await errorOf(
      429,
      '{"error":{"message":"Rate limit reached for gpt-4.1 in organization org-x on tokens per min (TPM): Limit 30000, Used 30000. Please try again in 2.01s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}',
      {
        "x-ratelimit-remaining-requests": "499",
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-requests": "120ms",
        "x-ratelimit-reset-tokens": "6m0s",
      },
      "gpt-4.1",
    );
    expect(error).toMatchObject({
      status: 429,
      providerCode: "rate_limit_exceeded",
      kind: "rate_limited",
      retryable: true,
      retryAfterMs: 360_000,
      model: "gpt-4.1",
    });
    expect(error.message).toContain("p returned HTTP 429");
    expect(error.message).toContain("Rate limit reached");
    expect(error.message).toContain("retry after 360 s");
  });

  it.each([
    [{ "retry-after": "3" }, 3000],
    [{ "retry-after-ms": "250" }, 250],
    [{ "retry-after": "Wed, 01 Jan 2025 12:00:10 GMT" }, 10_000],
    [{ "x-ratelimit-reset-requests": "12ms" }, 12],
    [{ "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "2.5s" }, 2500],
    [
      {
        "x-ratelimit-reset-requests": "1s",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-tokens": "9s",
      },
      1000,
    ],
    [{}, 17],
  ])("retry hints %j -> %d ms", async (headers, ms) => {
    const error = await errorOf(429, '{"error":{"message":"Please try again in 17ms."}}', headers);
    expect(error.retryAfterMs).toBe(ms);
  });

  it("quota exhaustion is a non-retryable 429", async () => {
    const error = await errorOf(
      429,
      '{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}',
    );
    expect(error).toMatchObject({ kind: "quota_exhausted", retryable: false });
  });

  it("context overflow (OpenAI code, llama.cpp type) becomes a context_overflow error", async () => {
    const openai = await errorOf(
      400,
      `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
    );
    expect(openai).toMatchObject({ code: "context_overflow", kind: "context_overflow", retryable: false });
    expect(openai.message).toContain("[param: messages]");
    const llama = await errorOf(
      400,
      '{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens)","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}',
    );
    expect(llama).toMatchObject({
      kind: "context_overflow",
      providerCode: "exceed_context_size_error",
      status: 400,
    });
  });

  it("Anthropic overloaded 529 and Ollama 503 are retryable upstream failures", async () => {
    const anthropic = await errorOf(
      529,
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      {
        "retry-after": "1",
      },
    );
    expect(anthropic).toMatchObject({
      kind: "upstream_unhealthy",
      providerCode: "overloaded_error",
      retryAfterMs: 1000,
    });
    const ollama = await errorOf(
      503,
      '{"error":"server busy, please try again.  maximum pending requests exceeded"}',
    );
    expect(ollama).toMatchObject({ kind: "upstream_unhealthy", retryable: true });
  });

  it("x-should-retry overrides the classification", async () => {
    expect((await errorOf(500, "boom", { "x-should-retry": "false" })).retryable).toBe(false);
    expect((await errorOf(400, "odd", { "x-should-retry": "true" })).retryable).toBe(true);
  });

  it("401 and 404 messages say what to check", async () => {
    expect(
      (await errorOf(401, '{"error":{"message":"bad key","code":"invalid_api_key"}}')).message,
    ).toContain("Check the API key");
    expect((await errorOf(404, '{"error":"model not found"}')).message).toContain("Check the model id");
  });

  it("plain text and HTML bodies, empty bodies", async () => {
    const html = await errorOf(502, "<html><title>502 Bad Gateway</title></html>");
    expect(html).toMatchObject({ kind: "upstream_unhealthy", status: 502 });
    expect(html.message).toContain("502 Bad Gateway");
    const empty = await errorOf(500, "");
    expect(empty.rawBody).toBeUndefined();
    expect(empty.message).toContain("HTTP 500");
  });

  it("never leaks secrets into message, raw body or details", async () => {
    const error = await errorOf(
      401,
      `{"error":{"message":"Incorrect API key provided: ${KEY}. Also Bearer ${KEY} and sk-otherkey1234567890abcdefgh","code":"invalid_api_key"}}`,
    );
    const everything = JSON.stringify([error.message, error.rawBody, error.details, error.toJSON()]);
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain("sk-otherkey");
    expect(everything).toContain("[REDACTED]");
  });

  it("caps the raw body", async () => {
    const error = await errorOf(500, "x".repeat(100_000));
    expect(error.rawBody!.length).toBeLessThan(RAW_BODY_LIMIT + 20);
    expect(error.rawBody).toMatch(/…\[truncated\]$/);
  });
});
