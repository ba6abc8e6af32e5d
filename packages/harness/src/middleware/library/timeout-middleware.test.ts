import {
  assistant,
  type ChatModel,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { runText } from "../../agent-loop/agent-run.js";
import { SlowModel } from "../../testkit/slow-model.js";
import { runAgent, setup } from "./harness.fixture.js";
import { retryMiddleware } from "./retry-middleware.js";
import { timeoutMiddleware } from "./timeout-middleware.js";

const noLoopRetry = { retry: { maxRetries: 0 } };

describe("timeoutMiddleware", () => {
  it("fails a model call that outlasts the budget with a timeout (virtual time)", async () => {
    const { harness, clock } = setup({ policy: noLoopRetry });
    harness
      .registerModel("slow", new SlowModel({ delayMs: 60_000 }))
      .use(timeoutMiddleware({ timeoutMs: 500 }));
    const started = performance.now();
    const { error, events } = await runAgent(harness, "hi");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error?.code).toBe("timeout");
    expect(error?.details).toMatchObject({ scope: "model_call", value: 500, middleware: "timeout" });
    expect(error?.message).toContain("500 ms");
    expect(clock.now()).toBe(500);
    expect(events.ofType("middleware.failed").map((e) => e.name)).toEqual(["timeout"]);
  });

  it("lets a call that finishes in time through, and lowers the request's own timeout", async () => {
    const { harness } = setup({ policy: noLoopRetry });
    const model = new SlowModel({ delayMs: 499, reply: "in time" });
    harness.registerModel("slow", model).use(timeoutMiddleware({ timeoutMs: 500 }));
    const { run, error } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("in time");
    expect(model.requests[0]?.timeoutMs).toBe(500);
  });

  it("sets the stream idle timeout on requests that carry none, and rejects a bad one", async () => {
    const { harness } = setup({ policy: noLoopRetry });
    const model = new SlowModel({ delayMs: 1, reply: "ok" });
    harness
      .registerModel("slow", model)
      .use(timeoutMiddleware({ timeoutMs: 500, streamIdleTimeoutMs: 5_000 }));
    const { error } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(model.requests[0]?.streamIdleTimeoutMs).toBe(5_000);
    expect(() => timeoutMiddleware({ timeoutMs: 500, streamIdleTimeoutMs: -1 })).toThrow(
      /streamIdleTimeoutMs/,
    );
  });

  it("composes with retryMiddleware: a timed-out attempt is retried", async () => {
    const { harness } = setup({ policy: noLoopRetry });
    const model = new SlowFirstCall();
    harness
      .registerModel("m", model)
      .use(retryMiddleware({ policy: { maxRetries: 1, initialBackoffMs: 10 } }))
      .use(timeoutMiddleware({ timeoutMs: 1_000 }));
    const { run, error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("second try");
    expect(events.ofType("retry.scheduled").map((e) => e.error.code)).toEqual(["timeout"]);
  });

  it("rejects a missing, zero or negative timeout at construction", () => {
    for (const timeoutMs of [0, -5, Number.POSITIVE_INFINITY]) {
      expect(() => timeoutMiddleware({ timeoutMs })).toThrow(
        expect.objectContaining({
          code: "validation",
          details: { middleware: "timeout", option: "timeoutMs" },
        }),
      );
    }
  });
});

/** The first call takes an hour (of clock time); later calls answer at once. */
class SlowFirstCall implements ChatModel {
  readonly provider = "test";
  readonly modelId = "slow-first";
  private calls = 0;

  async invoke(_request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    if (++this.calls === 1) await options?.clock?.sleep(3_600_000, options.signal);
    return { message: assistant(this.calls === 1 ? "too late" : "second try"), finishReason: "stop" };
  }
}
