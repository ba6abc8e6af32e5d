import {
  type ChatModel,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  ProviderError,
  TinyAgentsError,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { runText } from "../../agent-loop/agent-run.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { runAgent, setup } from "./harness.fixture.js";
import { retryMiddleware } from "./retry-middleware.js";

const overloaded = (retryAfterMs?: number) =>
  new ProviderError({
    provider: "p",
    message: "overloaded",
    kind: "rate_limited",
    status: 429,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

/** The harness's own retry is off, so the middleware is the only retry layer. */
const noLoopRetry = { retry: { maxRetries: 0 } };

describe("retryMiddleware", () => {
  it("retries retryable failures with exponential backoff on the virtual clock", async () => {
    const { harness, clock } = setup({ policy: noLoopRetry });
    const model = new ScriptedModel([overloaded(), overloaded(), "finally"]);
    harness
      .registerModel("m", model)
      .use(retryMiddleware({ policy: { maxRetries: 3, initialBackoffMs: 100 } }));
    const started = performance.now();
    const { run, error, events } = await runAgent(harness, "hi");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("finally");
    expect(model.callCount).toBe(3);
    expect(clock.sleeps).toEqual([100, 200]);
    expect(clock.now()).toBe(300);
    const scheduled = events.ofType("retry.scheduled");
    expect(scheduled.map((e) => [e.attempt, e.delayMs, e.error.code])).toEqual([
      [2, 100, "provider"],
      [3, 200, "provider"],
    ]);
    expect(scheduled.every((e) => e.callId.endsWith("-model-1"))).toBe(true);
  });

  it("honours Retry-After, capped at retryAfterCapMs", async () => {
    const { harness, clock } = setup({ policy: noLoopRetry });
    harness
      .registerModel("m", new ScriptedModel([overloaded(1_500), overloaded(90_000), "ok"]))
      .use(retryMiddleware({ policy: { maxRetries: 2, retryAfterCapMs: 10_000 } }));
    const { error } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(clock.sleeps).toEqual([1_500, 10_000]);
  });

  it("stops at maxRetries (cap reached) and surfaces the last error", async () => {
    const { harness } = setup({ policy: noLoopRetry });
    const model = new ScriptedModel([overloaded(), overloaded(), overloaded()]);
    harness
      .registerModel("m", model)
      .use(retryMiddleware({ policy: { maxRetries: 2, initialBackoffMs: 10 } }));
    const { error, events } = await runAgent(harness, "hi");
    expect(error?.code).toBe("provider");
    expect(model.callCount).toBe(3);
    expect(events.ofType("retry.scheduled")).toHaveLength(2);
  });

  it("never retries a non-retryable error", async () => {
    const { harness } = setup({ policy: noLoopRetry });
    const bad = new ProviderError({
      provider: "p",
      message: "bad request",
      kind: "non_retryable",
      status: 400,
    });
    const model = new ScriptedModel([bad, "unused"]);
    harness.registerModel("m", model).use(retryMiddleware());
    const { error, events } = await runAgent(harness, "hi");
    expect(error?.message).toBe("bad request");
    expect(model.callCount).toBe(1);
    expect(events.ofType("retry.scheduled")).toEqual([]);
  });

  it("does not replay a stream after deltas were delivered, unless replayStreams", async () => {
    for (const replayStreams of [false, true]) {
      const { harness } = setup({ policy: noLoopRetry });
      const model = new BreaksMidStream();
      harness
        .registerModel("m", model)
        .use(retryMiddleware({ replayStreams, policy: { initialBackoffMs: 1 } }));
      const { run, error } = await runAgent(harness, "hi", { streaming: true });
      if (replayStreams) {
        expect(error).toBeUndefined();
        expect(runText(run)).toBe("complete answer");
        expect(model.calls).toBe(2);
      } else {
        expect(error?.code).toBe("provider");
        expect(model.calls).toBe(1);
      }
    }
  });

  it("rejects a bad policy at construction, naming the option", () => {
    expect(() => retryMiddleware({ policy: { maxRetries: -1 } })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { middleware: "retry", option: "policy.maxRetries" },
      }),
    );
    expect(() => retryMiddleware({ policy: { jitter: 2 } })).toThrow(/policy\.jitter/);
    const error = catchError(() => retryMiddleware({ policy: { initialBackoffMs: Number.NaN } }));
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
  });
});

/** Streams one delta, then fails with a retryable error; the second call succeeds. */
class BreaksMidStream implements ChatModel {
  readonly provider = "test";
  readonly modelId = "breaks";
  calls = 0;

  async invoke(_request: ModelRequest): Promise<ModelResponse> {
    throw new Error("stream only");
  }

  async *stream(_request: ModelRequest): AsyncGenerator<ModelStreamItem> {
    this.calls++;
    yield { type: "start" };
    if (this.calls === 1) {
      yield { type: "text_delta", text: "partial " };
      throw overloaded();
    }
    yield { type: "text_delta", text: "complete answer" };
    yield { type: "finish", finishReason: "stop" };
  }
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
