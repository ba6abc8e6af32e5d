import { type ModelRequest, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { cacheKey, modelCacheIdentity } from "./cache-key.js";

describe("cacheKey", () => {
  const base: ModelRequest = { messages: [user("q")], temperature: 0 };

  it("is stable, and ignores what does not change the answer", () => {
    const key = cacheKey(base, "m");
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey({ ...base, tags: ["x"], metadata: { a: 1 }, timeoutMs: 5, model: "alias" }, "m")).toBe(
      key,
    );
    expect(cacheKey({ messages: [user("q")], temperature: 0 }, "m")).toBe(key);
  });

  it("changes with the answer-affecting fields and the scope", () => {
    const key = cacheKey(base, "m");
    expect(cacheKey({ ...base, temperature: 1 }, "m")).not.toBe(key);
    expect(cacheKey({ ...base, messages: [user("r")] }, "m")).not.toBe(key);
    expect(cacheKey(base, "other")).not.toBe(key);
    expect(cacheKey(base, "m", { streaming: true })).not.toBe(key);
    expect(cacheKey(base, "m", { namespace: "tenant" })).not.toBe(key);
  });

  it("model identity falls back to provider:modelId", () => {
    expect(modelCacheIdentity({ provider: "p", modelId: "x" })).toBe("p:x");
    expect(modelCacheIdentity({ provider: "p", modelId: "x", cacheIdentity: "p|x|url" })).toBe("p|x|url");
  });
});
