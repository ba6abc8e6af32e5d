import type { HarnessRunStatus } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { RunStatusTracker } from "@tinyagents/harness/observability";
import { DEFAULT_CLOCK_START, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { ProviderError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting, tokens } from "./helpers.js";

const PROMPT = "TOP-SECRET-PROMPT: summarise the merger of Acme and Globex";
const INSTRUCTIONS = "SYSTEM-INSTRUCTIONS-XYZ";
const TOOL_OUTPUT = "CONFIDENTIAL-TOOL-OUTPUT-42";
const ANSWER = "FINAL-ANSWER-TEXT";

describe("run status record", () => {
  it("starts pending before a run starts", () => {
    const tracker = new RunStatusTracker(
      { runId: "r", rootRunId: "r", component: "agent" },
      () => 5,
      () => undefined,
    );
    expect(tracker.snapshot()).toMatchObject({
      status: "pending",
      phase: "idle",
      modelCalls: 0,
      toolCalls: 0,
    });
  });

  it("reads the time and the last event id from functions or from a clock and an event sink", () => {
    let time = 5;
    let last: string | undefined;
    const byFunctions = new RunStatusTracker(
      { runId: "r", rootRunId: "r", component: "agent" },
      () => time,
      () => last,
    );
    const sink = {
      get lastEventId() {
        return last;
      },
    };
    const byObjects = new RunStatusTracker(
      { runId: "r", rootRunId: "r", component: "agent" },
      { now: () => time },
      sink,
    );
    time = 9;
    last = "r-evt-3";
    for (const tracker of [byFunctions, byObjects]) {
      tracker.start();
      expect(tracker.snapshot()).toMatchObject({ startedAt: 5, updatedAt: 9, lastEventId: "r-evt-3" });
    }
  });

  it("moves running -> completed with counts, usage, cost, timestamps, and no prompts inside", async () => {
    const { harness, clock } = makeHarness({ instructions: INSTRUCTIONS });
    const seen: { where: string; status: HarnessRunStatus | undefined }[] = [];
    const lookup = FakeTool.of(
      "lookup",
      (_args, ctx) => {
        seen.push({ where: "tool", status: ctx.run.status() });
        return TOOL_OUTPUT;
      },
      { delayMs: 250 },
    );
    const model = new ScriptedModel([
      { toolCalls: [{ name: "lookup", arguments: { query: "acme globex" } }], usage: tokens(100, 10) },
      { toolCalls: [{ name: "lookup", arguments: { query: "again" } }], usage: tokens(150, 12) },
      async (_request) => ANSWER,
    ]);
    harness
      .registerModel("m", model, { pricing: { inputPerMillion: 1, outputPerMillion: 4 } })
      .registerTool(lookup)
      .use({
        name: "observer",
        beforeModel: (ctx) => {
          seen.push({ where: "beforeModel", status: ctx.run.status() });
        },
      });

    const ctx = lowerLayer(harness).createContext({ runId: "status-run", threadId: "th" }, undefined);
    expect(ctx.status()).toBeUndefined();
    const live: string[] = [];
    ctx.events.subscribe(() => {
      const s = ctx.status();
      if (s !== undefined && live.at(-1) !== s.status) live.push(s.status);
    });
    const { run, status } = await lowerLayer(harness).invokeInContextWithStatus(undefined, ctx, PROMPT);

    expect(live).toEqual(["running"]);
    expect(status.status).toBe("completed");
    expect(ctx.status()?.status).toBe("completed");
    expect(status).toMatchObject({
      runId: "status-run",
      rootRunId: "status-run",
      threadId: "th",
      component: "agent",
      phase: "done",
      modelCalls: 3,
      toolCalls: 2,
      activeToolCalls: [],
      startedAt: DEFAULT_CLOCK_START,
      endedAt: DEFAULT_CLOCK_START + 500,
      updatedAt: DEFAULT_CLOCK_START + 500,
    });
    expect(status.activeModelCall).toBeUndefined();
    expect(status.error).toBeUndefined();
    expect(clock.now()).toBe(DEFAULT_CLOCK_START + 500);
    // Counts and usage agree with the run.
    expect(status.modelCalls).toBe(run.modelCalls);
    expect(status.toolCalls).toBe(run.toolCalls);
    expect(status.usage).toEqual(run.usage);
    expect(status.usage).toMatchObject({ inputTokens: 250, outputTokens: 22 });
    expect(status.cost).toEqual(run.cost);
    expect(status.cost.total).toBeCloseTo((250 * 1 + 22 * 4) / 1_000_000, 12);
    expect(status.lastEventId).toMatch(/^status-run-evt-\d+$/);
    expect(status.lastEventId).toBe(`status-run-evt-${ctx.events.offset - 1}`);

    // While running: the phase and active calls are visible.
    const inModel = seen.filter((s) => s.where === "beforeModel").map((s) => s.status);
    expect(inModel.map((s) => [s?.status, s?.phase, s?.modelCalls])).toEqual([
      ["running", "middleware", 0],
      ["running", "middleware", 1],
      ["running", "middleware", 2],
    ]);
    const inTool = seen.filter((s) => s.where === "tool").map((s) => s.status);
    expect(inTool[0]).toMatchObject({ status: "running", phase: "tools", activeToolCalls: ["call-1"] });
    expect(inTool[0]?.activeModelCall).toBeUndefined();

    // Operational only: no prompts, instructions, tool arguments, tool outputs or answers.
    const json = JSON.stringify([status, ...seen.map((s) => s.status)]);
    for (const secret of [PROMPT, "TOP-SECRET", INSTRUCTIONS, TOOL_OUTPUT, ANSWER, "acme globex"]) {
      expect(json).not.toContain(secret);
    }
    expect(JSON.parse(JSON.stringify(status))).toEqual(status);
  });

  it("shows the active model call while the model runs", async () => {
    const { harness } = makeHarness();
    let during: HarnessRunStatus | undefined;
    const ctx = lowerLayer(harness).createContext({ runId: "r-active" }, undefined);
    harness.registerModel(
      "m",
      new ScriptedModel([
        () => {
          during = ctx.status();
          return "ok";
        },
      ]),
    );
    await lowerLayer(harness).invokeInContext(undefined, ctx, "hi");
    expect(during).toMatchObject({
      status: "running",
      phase: "model",
      activeModelCall: "r-active-model-1",
      modelCalls: 1,
    });
  });

  it("moves running -> failed with an error summary (and no prompt)", async () => {
    const { harness } = makeHarness();
    harness.registerModel(
      "m",
      new ScriptedModel([
        new ProviderError({ provider: "p", message: "bad key", kind: "non_retryable", status: 401 }),
      ]),
    );
    const { status, error } = await runCollecting(harness, PROMPT);
    expect(error?.code).toBe("provider");
    expect(status).toMatchObject({
      status: "failed",
      phase: "done",
      modelCalls: 1,
      error: { code: "provider", message: "bad key" },
    });
    expect(status.endedAt).toBeDefined();
    expect(JSON.stringify(status)).not.toContain("TOP-SECRET");
  });

  it("moves running -> cancelled when the signal aborts", async () => {
    const { harness } = makeHarness();
    const controller = new AbortController();
    harness.registerModel(
      "m",
      new ScriptedModel([
        () => {
          controller.abort();
          return "late";
        },
      ]),
    );
    const { status, error } = await runCollecting(harness, "hi", {}, { signal: controller.signal });
    expect(error?.code).toBe("cancelled");
    expect(status).toMatchObject({ status: "cancelled", phase: "done", error: { code: "cancelled" } });
  });

  it("counts recovered tool calls like the run does", async () => {
    const { harness } = makeHarness();
    harness.registerModel(
      "m",
      new ScriptedModel([{ toolCalls: [{ name: "missing" }, { name: "ok" }] }, "done"]),
    );
    harness.registerTool(FakeTool.returning("ok", "fine"));
    const { run, status, events } = await runCollecting(harness, "hi");
    expect(run.toolCalls).toBe(2);
    expect(events.ofType("run.completed")[0]?.toolCalls).toBe(2);
    expect(status.toolCalls).toBe(run.toolCalls);
  });

  it("invokeWithStatus returns the final record; invoke throws the run's error", async () => {
    const { harness } = makeHarness();
    harness.registerModel(
      "m",
      new ScriptedModel(["fine", new ProviderError({ provider: "p", message: "x", kind: "non_retryable" })]),
    );
    const ok = await lowerLayer(harness).invokeWithStatus(undefined, undefined, { runId: "w1" }, "hi");
    expect(ok.status).toMatchObject({ runId: "w1", status: "completed", modelCalls: 1 });
    await expect(
      lowerLayer(harness).invoke(undefined, undefined, { runId: "w2" }, "hi"),
    ).rejects.toMatchObject({
      code: "provider",
    });
  });
});
