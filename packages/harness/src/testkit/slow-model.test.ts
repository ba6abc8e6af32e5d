import { type ModelResponse, TinyAgentsError, text, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { DeterministicClock } from "./deterministic-clock.js";
import { SlowModel } from "./slow-model.js";

const request = { messages: [user("hi")] };

describe("SlowModel", () => {
  it("replies after delayMs of clock time (virtual: instant)", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const model = new SlowModel({ delayMs: 60_000, reply: "finally" });
    const started = performance.now();
    const response = await model.invoke(request, { clock });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(text(response.message)).toBe("finally");
    expect(clock.now()).toBe(60_000);
    expect(model.completed).toBe(1);
    expect(model.callCount).toBe(1);
  });

  it("waits on the system clock when none is given", async () => {
    const started = Date.now();
    const response = await new SlowModel({ delayMs: 20 }).invoke(request);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    expect(text(response.message)).toBe("done");
  });

  it("returns a copy of a full response reply", async () => {
    const reply: ModelResponse = {
      message: { role: "assistant", content: [], toolCalls: [] },
      finishReason: "length",
    };
    const response = await new SlowModel({ delayMs: 1, reply }).invoke(request, {
      clock: new DeterministicClock(),
    });
    expect(response).toEqual(reply);
    expect(response).not.toBe(reply);
  });

  it("rejects with cancelled when aborted during the wait", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const controller = new AbortController();
    const model = new SlowModel({ delayMs: 10_000 });
    const call = model.invoke(request, { clock, signal: controller.signal });
    await clock.sleep(1000);
    controller.abort();
    const error = await call.catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
    expect(clock.now()).toBe(1000);
    expect(model.completed).toBe(0);
  });

  it("loses a race against a shorter deadline on the same clock", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const controller = new AbortController();
    const call = new SlowModel({ delayMs: 5000 }).invoke(request, { clock, signal: controller.signal });
    const deadline = clock
      .sleep(1000)
      .then(() => controller.abort(new TinyAgentsError("timeout", "deadline")));
    await deadline;
    const error = await call.catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "timeout")).toBe(true);
    expect(clock.now()).toBe(1000);
  });
});
