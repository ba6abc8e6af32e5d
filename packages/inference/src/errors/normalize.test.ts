import { describe, expect, it } from "vitest";
import { abortedError, toTinyAgentsError } from "./normalize.js";
import { ProviderError } from "./provider-error.js";
import { TinyAgentsError } from "./tinyagents-error.js";

describe("toTinyAgentsError", () => {
  it("passes tinyagents errors (and subclasses) through unchanged", () => {
    const error = new TinyAgentsError("storage", "disk full");
    expect(toTinyAgentsError(error)).toBe(error);
    const provider = new ProviderError({ provider: "p", message: "m", kind: "retryable" });
    expect(toTinyAgentsError(provider, "tool")).toBe(provider);
  });

  it("maps AbortError to cancelled and TimeoutError to timeout", () => {
    const abort = new DOMException("This operation was aborted", "AbortError");
    expect(toTinyAgentsError(abort)).toMatchObject({ code: "cancelled", cause: abort });
    const timeoutReason = new DOMException("The operation timed out.", "TimeoutError");
    expect(toTinyAgentsError(timeoutReason)).toMatchObject({
      code: "timeout",
      message: "The operation timed out.",
    });
    const named = Object.assign(new Error("stop"), { name: "AbortError" });
    expect(toTinyAgentsError(named).code).toBe("cancelled");
  });

  it("wraps other errors with the fallback code, keeping message and cause", () => {
    const cause = new RangeError("out of range");
    const error = toTinyAgentsError(cause, "tool");
    expect(error.code).toBe("tool");
    expect(error.message).toBe("out of range");
    expect(error.cause).toBe(cause);
    expect(toTinyAgentsError(new Error("x")).code).toBe("internal");
  });

  it("stringifies non-errors", () => {
    expect(toTinyAgentsError("boom").message).toBe("boom");
    expect(toTinyAgentsError(42).message).toBe("42");
    expect(toTinyAgentsError({ message: "from object" }).message).toBe("from object");
    expect(toTinyAgentsError(Object.create(null)).message).toBe("Unknown error");
    expect(toTinyAgentsError(undefined).message).toBe("Unknown error");
    expect(TinyAgentsError.isInstance(toTinyAgentsError(null), "internal")).toBe(true);
  });
});

describe("abortedError", () => {
  it("uses the signal's reason", () => {
    const controller = new AbortController();
    controller.abort();
    expect(abortedError(controller.signal, "call")).toMatchObject({
      code: "cancelled",
      message: "call was cancelled",
    });
    const custom = new TinyAgentsError("limit_exceeded", "budget");
    const second = new AbortController();
    second.abort(custom);
    expect(abortedError(second.signal)).toBe(custom);
    const third = new AbortController();
    third.abort(new DOMException("t", "TimeoutError"));
    expect(abortedError(third.signal, "call").code).toBe("timeout");
  });
});
