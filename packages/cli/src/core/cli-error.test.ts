import { ProviderError, TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { describeFailure } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";
import { resolveDbPath } from "./paths.js";

describe("describeFailure", () => {
  it("says when to retry a rate-limited run", () => {
    const error = new ProviderError({
      provider: "openai",
      message: "429 Too Many Requests",
      kind: "rate_limited",
      status: 429,
      retryAfterMs: 7_200,
    });
    expect(describeFailure(error)).toEqual({
      message: "rate limited by openai: retry in 8 s (429 Too Many Requests)",
      exitCode: EXIT.rateLimited,
    });
    const wrapped = new TinyAgentsError("provider", "model call failed", { cause: error });
    expect(describeFailure(wrapped).exitCode).toBe(EXIT.rateLimited);
    const quota = new ProviderError({
      provider: "openai",
      message: "insufficient_quota",
      kind: "quota_exhausted",
      status: 429,
    });
    expect(describeFailure(quota).message).toContain("quota is exhausted");
  });

  it("maps unreachable endpoints, bad keys, config and cancellation", () => {
    const unreachable = new ProviderError({
      provider: "ollama",
      message: "ollama: could not reach http://127.0.0.1:1/v1 (ECONNREFUSED).",
      kind: "retryable",
    });
    expect(describeFailure(unreachable)).toEqual({
      message: unreachable.message,
      exitCode: EXIT.unreachable,
    });
    const denied = new ProviderError({
      provider: "openai",
      message: "401 invalid api key",
      kind: "non_retryable",
      status: 401,
    });
    expect(describeFailure(denied).exitCode).toBe(EXIT.config);
    const missing = new TinyAgentsError("validation", "no API key: set OPENAI_API_KEY", {
      details: { field: "apiKey" },
    });
    expect(describeFailure(missing).exitCode).toBe(EXIT.config);
    expect(describeFailure(new TinyAgentsError("cancelled", "stop")).exitCode).toBe(EXIT.cancelled);
    expect(describeFailure(new TinyAgentsError("limit_exceeded", "too many calls")).exitCode).toBe(
      EXIT.failed,
    );
  });
});

describe("resolveDbPath", () => {
  it("prefers --db, then TINYAGENTS_HOME, then XDG_DATA_HOME, then ~/.local/share", () => {
    expect(resolveDbPath({ TINYAGENTS_HOME: "/h" }, "/cwd", "x.db")).toBe("/cwd/x.db");
    expect(resolveDbPath({ TINYAGENTS_HOME: "/h", XDG_DATA_HOME: "/x" }, "/cwd")).toBe("/h/tinyagents.db");
    expect(resolveDbPath({ XDG_DATA_HOME: "/x", HOME: "/home/u" }, "/cwd")).toBe(
      "/x/tinyagents/tinyagents.db",
    );
    expect(resolveDbPath({ HOME: "/home/u" }, "/cwd")).toBe("/home/u/.local/share/tinyagents/tinyagents.db");
  });
});
