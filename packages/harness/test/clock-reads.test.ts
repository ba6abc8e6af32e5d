import { lowerLayer } from "@tinyagents/harness/internal";
import { DeterministicClock, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { ProviderError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./helpers.js";

/** A virtual clock that counts its reads. */
class CountingClock extends DeterministicClock {
  reads = 0;
  override now(): number {
    this.reads++;
    return super.now();
  }
}

/** Clock reads of one run of `toolTurns` tool turns then a final answer (no listener, no deadline). */
async function readsOfRun(toolTurns: number): Promise<number> {
  const clock = new CountingClock();
  const { harness } = makeHarness({ clock });
  const steps = [];
  for (let i = 0; i < toolTurns; i++) steps.push({ toolCalls: [{ name: "echo", arguments: { n: i } }] });
  harness
    .registerModel("m", new ScriptedModel([...steps, "done"]))
    .registerTool(FakeTool.of("echo", () => "ok"))
    .setDefaultModel("m");
  const before = clock.reads;
  const { run } = await lowerLayer(harness).invokeInContextWithStatus(
    undefined,
    lowerLayer(harness).createContext({}, undefined),
    "go",
  );
  expect(run.toolCalls).toBe(toolTurns);
  return clock.reads - before;
}

describe("clock reads on the hot path", () => {
  it("a tool step reads the clock four times: model call start and end, tool call start and end", async () => {
    // The status record, the open-call records and the events' durations share these reads
    // (docs/performance.md, "Profiling findings"): `Date.now` was ~7% of the W1 profile.
    const one = await readsOfRun(1);
    const three = await readsOfRun(3);
    expect((three - one) / 2).toBe(4);
  });

  it("a run without a deadline reads the clock only for its records: none for the deadline, one for its end", async () => {
    // Per run (no tool turn): the context's start, the status record's creation and start, the
    // model call's start and end, the status record's end (its endedAt is its last updatedAt).
    expect(await readsOfRun(0)).toBe(6);
  });

  it("a model call's status timestamps are the call's own start and end", async () => {
    const clock = new DeterministicClock();
    const { harness } = makeHarness({ clock });
    const model = new ScriptedModel([
      async () => {
        await clock.sleep(40);
        return "done";
      },
    ]);
    harness.registerModel("m", model).setDefaultModel("m");
    const ctx = lowerLayer(harness).createContext({}, undefined);
    const seen: { type: string; updatedAt: number | undefined; durationMs?: number }[] = [];
    ctx.events.subscribe((record) => {
      const e = record.event;
      if (e.type !== "model.started" && e.type !== "model.completed") return;
      seen.push({
        type: e.type,
        updatedAt: ctx.status()?.updatedAt,
        ...(e.type === "model.completed" ? { durationMs: e.durationMs } : {}),
      });
    });
    const start = clock.now();
    const { status } = await lowerLayer(harness).invokeInContextWithStatus(undefined, ctx, "go");
    expect(seen).toEqual([
      { type: "model.started", updatedAt: start },
      { type: "model.completed", updatedAt: start, durationMs: 40 },
    ]);
    expect(status.endedAt).toBe(start + 40);
  });

  it("a model call that retried still ends its status entry before afterModel and the next turn", async () => {
    const { harness } = makeHarness();
    const seen: unknown[] = [];
    harness
      .registerModel(
        "m",
        new ScriptedModel([
          new ProviderError({ provider: "p", message: "busy", kind: "retryable", status: 503 }),
          { toolCalls: [{ name: "echo", arguments: {} }] },
          "done",
        ]),
      )
      .registerTool(FakeTool.of("echo", () => "ok"))
      .setDefaultModel("m")
      .use({
        name: "observer",
        afterModel: (ctx, response) => {
          const status = ctx.run.status();
          seen.push(["afterModel", status?.activeModelCall, status?.phase]);
          return response;
        },
        beforeModel: (ctx) => {
          seen.push(["beforeModel", ctx.run.status()?.activeModelCall]);
        },
      });
    const { run, status } = await lowerLayer(harness).invokeInContextWithStatus(
      undefined,
      lowerLayer(harness).createContext({}, undefined),
      "go",
    );
    expect(run.modelCalls).toBe(2);
    expect(seen).toEqual([
      ["beforeModel", undefined],
      ["afterModel", undefined, "middleware"],
      ["beforeModel", undefined],
      ["afterModel", undefined, "middleware"],
    ]);
    expect(status.status).toBe("completed");
  });
});
