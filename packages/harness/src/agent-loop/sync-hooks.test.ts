import type { MessageDelta } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { runAgent, setup } from "../middleware/library/harness.fixture.js";
import type { Middleware } from "../middleware/middleware.js";
import { StreamingMock } from "../testkit/streaming-mock.js";

describe("hooks that must answer synchronously", () => {
  it("an async onModelDelta hook fails the run with a typed middleware error (its Promise is never a delta)", async () => {
    const { harness } = setup();
    const asyncHook: Middleware = {
      name: "async-redactor",
      // An `async` hook: returns a Promise where a delta (or null/undefined) is required.
      onModelDelta: (async (_ctx: unknown, delta: MessageDelta) => delta) as unknown as NonNullable<
        Middleware["onModelDelta"]
      >,
    };
    harness.registerModel("m", StreamingMock.fromTextChunks(["hel", "lo"])).use(asyncHook);
    const ran = await runAgent(harness, "hi", { streaming: true });
    expect(ran.error?.code).toBe("middleware");
    expect(ran.error?.message).toContain('middleware "async-redactor" returned a Promise from onModelDelta');
    expect(ran.error?.details).toEqual({ middleware: "async-redactor", hook: "onModelDelta" });
    expect(ran.events.ofType("model.failed")).toHaveLength(1);
    expect(ran.events.types().at(-1)).toBe("run.failed");
  });

  it("an async onModelStreamEnd hook fails the run the same way", async () => {
    const { harness } = setup();
    const asyncEnd: Middleware = {
      name: "async-end",
      onModelStreamEnd: (async () => []) as unknown as NonNullable<Middleware["onModelStreamEnd"]>,
    };
    harness.registerModel("m", StreamingMock.fromTextChunks(["a"])).use(asyncEnd);
    const ran = await runAgent(harness, "hi", { streaming: true });
    expect(ran.error?.code).toBe("middleware");
    expect(ran.error?.message).toContain("returned a Promise from onModelStreamEnd");
  });
});
