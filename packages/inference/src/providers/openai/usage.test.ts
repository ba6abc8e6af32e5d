import { describe, expect, it } from "vitest";
import { normalizeOpenAiUsage, usageFromTimings } from "./usage.js";

describe("normalizeOpenAiUsage", () => {
  it("OpenAI: cached and reasoning tokens are subsets", () => {
    const raw = {
      prompt_tokens: 2000,
      completion_tokens: 300,
      total_tokens: 2300,
      prompt_tokens_details: { cached_tokens: 1792, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 256 },
    };
    expect(normalizeOpenAiUsage(raw)).toEqual({
      inputTokens: 2000,
      outputTokens: 300,
      totalTokens: 2300,
      cacheReadTokens: 1792,
      cacheWriteTokens: 0,
      reasoningTokens: 256,
      raw,
    });
  });

  it("xAI: completion excludes reasoning, detected from the total", () => {
    const u = normalizeOpenAiUsage({
      prompt_tokens: 291,
      completion_tokens: 26,
      total_tokens: 513,
      completion_tokens_details: { reasoning_tokens: 196 },
    });
    expect(u).toMatchObject({ inputTokens: 291, outputTokens: 222, reasoningTokens: 196, totalTokens: 513 });
    const flagged = normalizeOpenAiUsage(
      { prompt_tokens: 1, completion_tokens: 2, completion_tokens_details: { reasoning_tokens: 3 } },
      true,
    );
    expect(flagged).toMatchObject({ outputTokens: 5, totalTokens: 6 });
  });

  it("DeepSeek cache hit tokens; cache writes; missing totals", () => {
    expect(
      normalizeOpenAiUsage({
        prompt_tokens: 100,
        completion_tokens: 5,
        prompt_cache_hit_tokens: 64,
        prompt_cache_miss_tokens: 36,
      }),
    ).toMatchObject({
      cacheReadTokens: 64,
      totalTokens: 105,
    });
    expect(
      normalizeOpenAiUsage({
        prompt_tokens: 10,
        completion_tokens: 1,
        prompt_tokens_details: { cache_write_tokens: 4, cache_creation_tokens: 6 },
      }),
    ).toMatchObject({ cacheWriteTokens: 6 });
    expect(normalizeOpenAiUsage({ foo: 1 })).toBeUndefined();
  });

  it("llama.cpp timings", () => {
    expect(usageFromTimings({ prompt_n: 12, cache_n: 30, predicted_n: 7 })).toMatchObject({
      inputTokens: 42,
      outputTokens: 7,
      cacheReadTokens: 30,
      totalTokens: 49,
    });
  });
});
