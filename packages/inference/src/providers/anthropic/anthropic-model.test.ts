import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../../errors/tinyagents-error.js";
import { AnthropicModel } from "./anthropic-model.js";
import { DEFAULT_ANTHROPIC_MODEL } from "./anthropic-options.js";

describe("AnthropicModel options", () => {
  it("refuses to start without an API key and names the variable", () => {
    let error: unknown;
    try {
      new AnthropicModel({ env: {} });
    } catch (e) {
      error = e;
    }
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect((error as Error).message).toContain("ANTHROPIC_API_KEY");
  });

  it("reads key, base URL and model from the environment; explicit options win", async () => {
    const seen: Array<{ url: string; headers: Record<string, string> }> = [];
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      seen.push({ url: String(url), headers: init?.headers as Record<string, string> });
      return new Response(JSON.stringify({ id: "m", content: [], stop_reason: "end_turn" }), {
        headers: { "content-type": "application/json" },
      });
    };
    const env = {
      ANTHROPIC_API_KEY: "sk-ant-env-key-123456",
      ANTHROPIC_BASE_URL: "https://proxy.example/",
      ANTHROPIC_MODEL: "claude-env",
    };
    const fromEnv = new AnthropicModel({ env, fetch });
    expect(fromEnv.modelId).toBe("claude-env");
    expect(fromEnv.cacheIdentity).toBe("anthropic:https://proxy.example/:claude-env");
    expect(fromEnv.cacheIdentity).not.toContain("sk-ant");
    await fromEnv.invoke({ messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect(seen[0]?.url).toBe("https://proxy.example/v1/messages");
    expect(seen[0]?.headers["x-api-key"]).toBe("sk-ant-env-key-123456");
    expect(seen[0]?.headers["anthropic-version"]).toBe("2023-06-01");

    const explicit = new AnthropicModel({
      env,
      fetch,
      apiKey: "sk-ant-explicit-654321",
      model: "claude-explicit",
      anthropicVersion: "2099-01-01",
      headers: { "anthropic-beta": "feature-x" },
    });
    await explicit.invoke({ messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect(seen[1]?.headers).toMatchObject({
      "x-api-key": "sk-ant-explicit-654321",
      "anthropic-version": "2099-01-01",
      "anthropic-beta": "feature-x",
    });
    expect(new AnthropicModel({ env: { ANTHROPIC_API_KEY: "k-123456" } }).modelId).toBe(
      DEFAULT_ANTHROPIC_MODEL,
    );
  });

  it("accepts an authorization header instead of an API key", () => {
    const model = new AnthropicModel({ env: {}, headers: { Authorization: "Bearer oauth-token-123" } });
    expect(model.provider).toBe("anthropic");
  });

  it("rejects a non-integer maxTokens", () => {
    expect(() => new AnthropicModel({ apiKey: "k-123456", maxTokens: 0 })).toThrow(/maxTokens/);
  });
});
