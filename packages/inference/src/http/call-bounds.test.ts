import { describe, expect, it } from "vitest";
import type { Clock } from "../clock/clock.js";
import { systemClock } from "../clock/clock.js";
import type { Timer } from "../clock/timer-queue.js";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { AnthropicModel } from "../providers/anthropic/anthropic-model.js";
import { createModel } from "../providers/create-model.js";
import { OllamaModel } from "../providers/ollama/ollama-model.js";
import { OpenAiChatModel } from "../providers/openai/openai-chat-model.js";
import { compatible, groq } from "../providers/openai/presets.js";
import { OpenAiResponsesModel } from "../providers/openai-responses/responses-model.js";
import {
  boundsForRequest,
  CallBounds,
  callBoundError,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  limitClock,
  resolveCallBounds,
} from "./call-bounds.js";
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS } from "./stream-idle-timeout.js";

/** A clock whose timers fire only when the test says so; records what was armed. */
function manualClock(): Clock & { armed: { ms: number; fire: () => void; cancelled: boolean }[] } {
  const armed: { ms: number; fire: () => void; cancelled: boolean }[] = [];
  return {
    armed,
    now: () => 0,
    sleep: () => Promise.resolve(),
    setTimer(ms: number, callback: () => void): Timer {
      const entry = { ms, fire: callback, cancelled: false };
      armed.push(entry);
      return { cancel: () => (entry.cancelled = true) };
    },
  };
}

const WHO = { provider: "acme", model: "m-1" };

describe("call bounds: defaults", () => {
  it("the defaults are 10 min total, 60 s headers, 240 s stream idle", () => {
    expect(DEFAULT_CALL_TIMEOUT_MS).toBe(600_000);
    expect(DEFAULT_HEADERS_TIMEOUT_MS).toBe(60_000);
    expect(DEFAULT_STREAM_IDLE_TIMEOUT_MS).toBe(240_000);
    expect(resolveCallBounds({}, "X")).toEqual({
      timeoutMs: 600_000,
      headersTimeoutMs: 60_000,
      streamIdleTimeoutMs: 240_000,
    });
  });

  it("every HTTP adapter, preset and createModel gets them, and passes overrides through", () => {
    const defaults = { timeoutMs: 600_000, headersTimeoutMs: 60_000, streamIdleTimeoutMs: 240_000 };
    const custom = { timeoutMs: 5_000, headersTimeoutMs: 1_000, streamIdleTimeoutMs: 2_000 };
    expect(new OpenAiChatModel({ model: "m" }).bounds).toEqual(defaults);
    expect(new AnthropicModel({ apiKey: "k", env: {} }).bounds).toEqual(defaults);
    expect(new OllamaModel({ env: {} }).bounds).toEqual(defaults);
    expect(new OpenAiChatModel({ model: "m", ...custom }).bounds).toEqual(custom);
    expect(new AnthropicModel({ apiKey: "k", env: {}, ...custom }).bounds).toEqual(custom);
    expect(new OllamaModel({ env: {}, ...custom }).bounds).toEqual(custom);
    expect(groq({ model: "m", apiKey: "k", env: {}, ...custom }).bounds).toEqual(custom);
    expect(compatible("http://127.0.0.1:1/v1", "m", custom).bounds).toEqual(custom);
    const viaCreate = createModel("openai:gpt-x", { apiKey: "k", env: {}, ...custom }) as OpenAiChatModel;
    expect(viaCreate.bounds).toEqual(custom);
    const anthropic = createModel("anthropic:claude-x", {
      apiKey: "k",
      env: {},
      ...custom,
    }) as AnthropicModel;
    expect(anthropic.bounds).toEqual(custom);
    expect(new OpenAiResponsesModel({ model: "m", apiKey: "k", env: {} }).bounds).toEqual(defaults);
    const responses = createModel("openai-responses:gpt-x", {
      apiKey: "k",
      env: {},
      ...custom,
    }) as OpenAiResponsesModel;
    expect(responses.bounds).toEqual(custom);
  });

  it.each([
    ["timeoutMs", -1],
    ["headersTimeoutMs", Number.NaN],
    ["timeoutMs", "10"],
  ])("rejects %s = %s with a validation error naming the field", (field, value) => {
    const error = (() => {
      try {
        new OpenAiChatModel({ model: "m", [field]: value });
      } catch (e) {
        return e;
      }
    })();
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect((error as TinyAgentsError).details).toEqual({ field });
    expect((error as Error).message).toContain(`OpenAiChatModel: ${field} must be`);
  });

  it("the request's fields win over the model's", () => {
    const model = resolveCallBounds({}, "X");
    expect(boundsForRequest(model, { timeoutMs: 0, headersTimeoutMs: 5 })).toEqual({
      timeoutMs: 0,
      headersTimeoutMs: 5,
      streamIdleTimeoutMs: 240_000,
    });
  });
});

describe("CallBounds on the call's clock", () => {
  it("arms the total and (streamed calls only) the headers timer on the clock; each aborts with a typed timeout", () => {
    const clock = manualClock();
    const streamed = new CallBounds({ clock, bounds: resolveCallBounds({}, "X"), streaming: true, ...WHO });
    expect(clock.armed.map((t) => t.ms)).toEqual([600_000, 60_000]);
    clock.armed[1]!.fire();
    expect(streamed.signal.aborted).toBe(true);
    const reason = streamed.signal.reason as TinyAgentsError;
    expect(reason.code).toBe("timeout");
    expect(reason.details).toEqual({ scope: "model_call", limit: "headers_timeout", value: 60_000, ...WHO });
    streamed.dispose();
    expect(clock.armed.every((t) => t.cancelled)).toBe(true);

    const unary = manualClock();
    const call = new CallBounds({
      clock: unary,
      bounds: resolveCallBounds({}, "X"),
      streaming: false,
      ...WHO,
    });
    expect(unary.armed.map((t) => t.ms)).toEqual([600_000]);
    unary.armed[0]!.fire();
    expect((call.signal.reason as TinyAgentsError).details?.limit).toBe("model_call_timeout");
  });

  it("headersReceived() cancels the headers timer; 0 and Infinity arm nothing", () => {
    const clock = manualClock();
    const call = new CallBounds({ clock, bounds: resolveCallBounds({}, "X"), streaming: true, ...WHO });
    call.headersReceived();
    expect(clock.armed[1]!.cancelled).toBe(true);
    expect(clock.armed[0]!.cancelled).toBe(false);
    const none = manualClock();
    new CallBounds({
      clock: none,
      bounds: { timeoutMs: 0, headersTimeoutMs: Number.POSITIVE_INFINITY, streamIdleTimeoutMs: 0 },
      streaming: true,
      ...WHO,
    });
    expect(none.armed).toEqual([]);
  });

  it("follows the caller's signal and detaches from it on dispose", () => {
    const controller = new AbortController();
    const call = new CallBounds({
      signal: controller.signal,
      clock: manualClock(),
      bounds: resolveCallBounds({}, "X"),
      streaming: true,
      ...WHO,
    });
    controller.abort(new Error("stop"));
    expect(call.signal.aborted).toBe(true);
    expect((call.signal.reason as Error).message).toBe("stop");
    const other = new AbortController();
    const later = new CallBounds({
      signal: other.signal,
      clock: manualClock(),
      bounds: resolveCallBounds({}, "X"),
      streaming: true,
      ...WHO,
    });
    later.dispose();
    other.abort();
    expect(later.signal.aborted).toBe(false);
  });

  it("a clock without setTimer runs the limits on the system clock (a sleep would move or skip its time)", () => {
    const sleepOnly: Clock = { now: () => 0, sleep: () => Promise.resolve() };
    expect(limitClock(sleepOnly)).toBe(systemClock);
    expect(limitClock(undefined)).toBe(systemClock);
    const withTimers = manualClock();
    expect(limitClock(withTimers)).toBe(withTimers);
  });

  it("the error names the limit and the option that changes it", () => {
    expect(callBoundError({ limit: "headers_timeout", ms: 60_000, ...WHO }).message).toBe(
      "acme m-1 timed out after 60000 ms waiting for the response headers (the headers timeout); raise `headersTimeoutMs` (a model option or a request field; 0 removes it) or check that the endpoint is up",
    );
    expect(callBoundError({ limit: "model_call_timeout", ms: 600_000, ...WHO }).message).toBe(
      "the call to acme m-1 timed out after 600000 ms (the total call timeout); raise `timeoutMs` (a model option or a request field; 0 removes it) or check the endpoint",
    );
  });
});
