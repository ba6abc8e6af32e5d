import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import {
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  isStreamIdleTimeout,
  resolveStreamIdleTimeout,
  streamIdleTimeoutError,
} from "./stream-idle-timeout.js";

describe("stream idle timeout helpers", () => {
  it("resolveStreamIdleTimeout: default, disable values, and rejects nonsense", () => {
    expect(resolveStreamIdleTimeout(undefined, "X")).toBe(DEFAULT_STREAM_IDLE_TIMEOUT_MS);
    expect(DEFAULT_STREAM_IDLE_TIMEOUT_MS).toBe(240_000);
    expect(resolveStreamIdleTimeout(0, "X")).toBe(0);
    expect(resolveStreamIdleTimeout(Number.POSITIVE_INFINITY, "X")).toBe(Number.POSITIVE_INFINITY);
    expect(resolveStreamIdleTimeout(1500, "X")).toBe(1500);
    for (const bad of [-1, Number.NaN, "30000", null]) {
      expect(() => resolveStreamIdleTimeout(bad, "OllamaModel")).toThrow(
        /OllamaModel: streamIdleTimeoutMs must be/,
      );
    }
  });

  it("the error's JSON summary (what events and journals keep) says the same", () => {
    const error = streamIdleTimeoutError({ provider: "p", idleTimeoutMs: 5, receivedBytes: 3 });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: "TinyAgentsError",
      code: "timeout",
      message: error.message,
      details: {
        scope: "model_call",
        limit: "stream_idle_timeout",
        value: 5,
        provider: "p",
        receivedBytes: 3,
      },
    });
    expect(isStreamIdleTimeout(new TinyAgentsError("timeout", "x"))).toBe(false);
  });
});
