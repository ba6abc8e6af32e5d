import { describe, expect, it } from "vitest";
import { classifyNetworkError, classifyProviderFailure, type ProviderFailureFacts } from "./classify.js";
import { isContextOverflowCode, isContextOverflowMessage } from "./context-overflow.js";
import type { ProviderFailureKind } from "./provider-error.js";

describe("classifyProviderFailure", () => {
  const table: Array<[ProviderFailureFacts, ProviderFailureKind]> = [
    [{ status: 429 }, "rate_limited"],
    [
      { status: 429, code: "rate_limit_exceeded", message: "Rate limit reached for gpt-4 on tokens per min" },
      "rate_limited",
    ],
    [{ status: 429, message: "Request too large: too many tokens per min" }, "rate_limited"],
    [{ status: 429, code: "insufficient_quota" }, "quota_exhausted"],
    [{ status: 429, code: "billing_hard_limit_reached" }, "quota_exhausted"],
    [
      {
        status: 429,
        message: "You exceeded your current quota, please check your plan and billing details.",
      },
      "quota_exhausted",
    ],
    [
      { status: 400, message: "Your credit balance is too low to access the Anthropic API." },
      "quota_exhausted",
    ],
    [{ status: 402 }, "quota_exhausted"],
    [{ status: 408 }, "retryable"],
    [{ status: 409 }, "retryable"],
    [{ status: 425 }, "retryable"],
    [{ status: 500 }, "upstream_unhealthy"],
    [{ status: 502 }, "upstream_unhealthy"],
    [{ status: 503 }, "upstream_unhealthy"],
    [{ status: 504 }, "upstream_unhealthy"],
    [{ status: 529 }, "upstream_unhealthy"],
    [{ status: 520 }, "upstream_unhealthy"],
    [{ status: 501 }, "non_retryable"],
    [{ code: "overloaded_error", message: "Overloaded" }, "upstream_unhealthy"],
    [{ status: 200, code: "overloaded_error" }, "upstream_unhealthy"],
    [{ status: 400, code: "context_length_exceeded" }, "context_overflow"],
    [
      {
        status: 400,
        message: "This model's maximum context length is 8192 tokens. However, you requested 9000",
      },
      "context_overflow",
    ],
    [{ status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" }, "context_overflow"],
    [{ status: 413, message: "input exceeds the context window of this model" }, "context_overflow"],
    [{ message: "too many tokens in the prompt" }, "context_overflow"],
    [{ status: 413, code: "request_too_large" }, "non_retryable"],
    [{ status: 400 }, "non_retryable"],
    [{ status: 401, code: "invalid_api_key" }, "non_retryable"],
    [{ status: 403 }, "non_retryable"],
    [{ status: 404, code: "model_not_found" }, "non_retryable"],
    [{ status: 422 }, "non_retryable"],
    [{ code: "rate_limit_error" }, "rate_limited"],
    [{}, "non_retryable"],
  ];
  it.each(table)("%j -> %s", (facts, kind) => {
    expect(classifyProviderFailure(facts)).toBe(kind);
  });
});

describe("classifyNetworkError", () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });
  it.each([
    [withCode("ECONNRESET"), "retryable"],
    [withCode("ECONNREFUSED"), "retryable"],
    [withCode("ETIMEDOUT"), "retryable"],
    [withCode("EAI_AGAIN"), "retryable"],
    [withCode("ENOTFOUND"), "non_retryable"],
    [withCode("CERT_HAS_EXPIRED"), "non_retryable"],
    [new TypeError("fetch failed", { cause: withCode("UND_ERR_SOCKET") }), "retryable"],
    [new TypeError("fetch failed", { cause: withCode("ENOTFOUND") }), "non_retryable"],
    [new TypeError("fetch failed"), "retryable"],
    [new DOMException("The operation timed out.", "TimeoutError"), "retryable"],
    [new DOMException("This operation was aborted", "AbortError"), "non_retryable"],
    [new Error("something else"), "non_retryable"],
    ["socket hang up", "retryable"],
    [42, "non_retryable"],
  ])("%s -> %s", (error, kind) => {
    expect(classifyNetworkError(error)).toBe(kind);
  });
});

describe("context overflow detection", () => {
  it("recognises provider phrasings and codes", () => {
    expect(isContextOverflowMessage("maximum context length is 4096 tokens")).toBe(true);
    expect(isContextOverflowMessage("Prompt is too long")).toBe(true);
    expect(isContextOverflowMessage("The input token count (2000000) exceeds the maximum")).toBe(true);
    expect(isContextOverflowMessage("rate limited")).toBe(false);
    expect(isContextOverflowMessage(undefined)).toBe(false);
    expect(isContextOverflowCode("context_length_exceeded")).toBe(true);
    expect(isContextOverflowCode("invalid_request_error")).toBe(false);
  });
});
