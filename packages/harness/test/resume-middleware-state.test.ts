/**
 * Acceptance: middleware per-run state survives pause → JSON → resume in a fresh harness
 * (`Middleware.saveState` / `restoreState`, `PausedRun.middlewareState`). A per-run cap cannot be
 * escaped by pausing; failure counts and spent budget carry over; old records still resume.
 */
import {
  AgentHarness,
  budgetMiddleware,
  EventSink,
  type Middleware,
  type PausedRun,
  redactionMiddleware,
  SteeringHandle,
} from "@tinyagents/harness";
import { validatePausedRun } from "@tinyagents/harness/durability";
import { lowerLayer } from "@tinyagents/harness/internal";
import {
  BudgetTracker,
  contextualToolSelectionMiddleware,
  modelCallLimitMiddleware,
  noProgressMiddleware,
  toolCallLimitMiddleware,
} from "@tinyagents/harness/middleware";
import {
  DeterministicClock,
  DeterministicIds,
  EventRecorder,
  FakeTool,
  ScriptedModel,
  type ScriptStep,
} from "@tinyagents/harness/testkit";
import { usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";

type H<State> = AgentHarness<State, undefined>;

const lookup = (id: string, q = id): ScriptStep => ({
  toolCalls: [{ id, name: "lookup", arguments: { q } }],
});
/** `n` turns each asking for one lookup (ids c1..cn), then a final answer. */
const lookups = (n: number): ScriptStep[] => [
  ...Array.from({ length: n }, (_, i) => lookup(`c${i + 1}`)),
  "done",
];

function harness<State = undefined>(steps: ScriptStep[], middleware: Middleware<State, undefined>[] = []) {
  const h = new AgentHarness<State, undefined>({
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
  });
  const model = new ScriptedModel(steps, { usage: usage({ inputTokens: 10, outputTokens: 2 }) });
  h.registerModel("m", model, { pricing: { inputPerMillion: 1, outputPerMillion: 1 } });
  h.registerTool(FakeTool.of("lookup", (args) => `found ${String((args as { q: string }).q)}`));
  h.registerTool(FakeTool.failing("flaky", "boom"));
  for (const m of middleware) h.use(m);
  return { h, model };
}

/** Pauses the run (steering) after this middleware instance has seen `n` model responses. */
function pauseAfterModelCall<State>(n: number): Middleware<State, undefined> {
  let calls = 0;
  return {
    name: "pause-after",
    afterModel: (ctx) => {
      if (++calls === n) ctx.run.steering?.pauseWith("review");
    },
  };
}

async function start<State>(h: H<State>, state?: State) {
  const outcome = await lowerLayer(h).invokeCollectingPartial(
    state as State,
    undefined,
    { runId: "r1" },
    "go",
    {
      steering: SteeringHandle.allowAll(),
    },
  );
  expect(outcome.error).toBeUndefined();
  expect(outcome.run.stopReason).toBe("interrupted");
  return outcome.run.paused as PausedRun;
}

/** Store and load as JSON, the way another process would get it. */
function throughJson(paused: PausedRun): PausedRun {
  const loaded = JSON.parse(JSON.stringify(paused)) as unknown;
  expect(loaded).toEqual(paused);
  return validatePausedRun(loaded);
}

async function resume<State>(h: H<State>, paused: PausedRun, state?: State) {
  const sink = new EventSink("r1-resumed");
  const events = new EventRecorder();
  events.attach(sink);
  const outcome = await lowerLayer(h).resumeCollectingPartial(state as State, undefined, paused, {
    events: sink,
  });
  return { ...outcome, events };
}

describe("call limits survive a pause", () => {
  it("toolCallLimitMiddleware: a per-run cap of 3 trips at the 4th call in total, not the 4th after resume", async () => {
    const { h: first } = harness(lookups(5), [
      toolCallLimitMiddleware({ runLimit: 3 }),
      pauseAfterModelCall(2),
    ]);
    // c1 ran; paused in front of c2.
    const paused = await start(first);
    expect(paused.toolCalls).toBe(1);
    expect(paused.pendingToolCalls.map((c) => c.id)).toEqual(["c2"]);
    expect(paused.middlewareState).toEqual({ tool_call_limit: { total: 1, byTool: [["lookup", 1]] } });

    const { h: fresh, model } = harness(lookups(5).slice(2), [toolCallLimitMiddleware({ runLimit: 3 })]);
    const resumed = await resume(fresh, throughJson(paused));
    // c2 (pending) and c3 run: 3 in total; c4 is refused.
    expect(resumed.error?.code).toBe("limit_exceeded");
    expect(resumed.error?.details).toMatchObject({ limit: "tool_calls", value: 3, count: 4 });
    expect(resumed.events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "tool_calls", value: 3, count: 4 },
    ]);
    // The loop counts the refused call as asked for (its own cap counts requests).
    expect(resumed.run.toolCalls).toBe(4);
    expect(model.callCount).toBe(2);
  });

  it("toolCallLimitMiddleware: per-tool counts carry over too", async () => {
    const { h: first } = harness(lookups(4), [
      toolCallLimitMiddleware({ perTool: { lookup: 2 }, behavior: "returnError" }),
      pauseAfterModelCall(2),
    ]);
    const paused = await start(first);
    const { h: fresh } = harness(lookups(4).slice(2), [
      toolCallLimitMiddleware({ perTool: { lookup: 2 }, behavior: "returnError" }),
    ]);
    const resumed = await resume(fresh, throughJson(paused));
    expect(resumed.error).toBeUndefined();
    // c1 before the pause, c2 after it: c3 and c4 are answered "not executed".
    expect(resumed.events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "tool_calls:lookup", value: 2, count: 3 },
      { type: "limit.reached", limit: "tool_calls:lookup", value: 2, count: 3 },
    ]);
    const results = resumed.run.messages.filter((m) => m.role === "tool").map((m) => JSON.stringify(m));
    expect(results.filter((r) => r.includes("Not executed"))).toHaveLength(2);
    expect(resumed.run.toolCalls).toBe(4);
  });

  it("modelCallLimitMiddleware: a cap of 3 model calls counts the calls made before the pause", async () => {
    const { h: first } = harness(lookups(5), [
      modelCallLimitMiddleware({ runLimit: 3 }),
      pauseAfterModelCall(2),
    ]);
    const paused = await start(first);
    expect(paused.middlewareState).toEqual({ model_call_limit: { calls: 2 } });
    const { h: fresh, model } = harness(lookups(5).slice(2), [modelCallLimitMiddleware({ runLimit: 3 })]);
    const resumed = await resume(fresh, throughJson(paused));
    expect(resumed.error?.code).toBe("limit_exceeded");
    expect(resumed.error?.details).toMatchObject({ limit: "model_calls", value: 3, count: 4 });
    expect(model.callCount).toBe(1);
    expect(resumed.run.modelCalls).toBe(3);
  });
});

describe("other library middleware", () => {
  it("noProgressMiddleware: repeated failures before the pause count after it (the pending call's included)", async () => {
    const flaky: ScriptStep = { toolCalls: [{ name: "flaky", arguments: { x: 1 } }] };
    const options = { maxRepeatedFailures: 3, maxRepeatedBatches: 10 };
    const { h: first } = harness(
      [flaky, flaky, flaky],
      [noProgressMiddleware(options), pauseAfterModelCall(3)],
    );
    // Two failures, a nudge before the 3rd call, then a pause in front of the 3rd failing call.
    const paused = await start(first);
    expect(paused.pendingToolCalls).toHaveLength(1);
    expect(paused.middlewareState?.no_progress).toMatchObject({
      failures: [['flaky:{"x":1}', "flaky", 2]],
      signatures: [[paused.pendingToolCalls[0]?.id, 'flaky:{"x":1}']],
      nudged: ['flaky:{"x":1}'],
      batchRepeats: 3,
    });

    const { h: fresh, model } = harness(["never reached"], [noProgressMiddleware(options)]);
    const resumed = await resume(fresh, throughJson(paused));
    // The pending call fails a 3rd time: halted before the next model call.
    expect(resumed.error?.code).toBe("limit_exceeded");
    expect(resumed.error?.details).toMatchObject({
      limit: "no_progress",
      kind: "repeated_failure",
      count: 3,
    });
    expect(resumed.events.ofType("no_progress.detected").map((e) => e.action)).toEqual(["halt"]);
    expect(model.callCount).toBe(0);
  });

  it("budgetMiddleware: spending before the pause counts against a fresh tracker after it", async () => {
    // 2 output tokens per call: 2 calls before the pause (4), the 3rd goes over 5, the 4th is blocked.
    const limits = { maxOutputTokens: 5 };
    const { h: first } = harness(lookups(5), [budgetMiddleware({ limits }), pauseAfterModelCall(2)]);
    const paused = await start(first);
    expect(paused.middlewareState?.budget).toMatchObject({ calls: 2, usage: { outputTokens: 4 } });

    const budget = budgetMiddleware<undefined, undefined>({ limits });
    const { h: fresh, model } = harness(lookups(5).slice(2), [budget]);
    const resumed = await resume(fresh, throughJson(paused));
    expect(resumed.error?.code).toBe("limit_exceeded");
    expect(resumed.error?.details).toMatchObject({ limit: "budget.maxOutputTokens" });
    expect(model.callCount).toBe(1);
    expect(budget.tracker.snapshot().usage).toMatchObject({ inputTokens: 30, outputTokens: 6 });
  });

  it("budgetMiddleware: resuming against the tracker that recorded the spending adds nothing; a retried resume neither", async () => {
    const tracker = new BudgetTracker();
    const budget = budgetMiddleware<undefined, undefined>({ limits: { maxOutputTokens: 100 }, tracker });
    const pause = pauseAfterModelCall<undefined>(2);
    const { h } = harness(lookups(3), [budget, pause]);
    const paused = await start(h);
    expect(tracker.snapshot().usage.outputTokens).toBe(4);
    const loaded = throughJson(paused);

    // A resume that fails mid-way (its script runs out), then a retry from the same record.
    const { h: failing } = harness([], [budgetMiddleware({ limits: { maxOutputTokens: 100 }, tracker })]);
    expect((await resume(failing, loaded)).error).toBeDefined();
    expect(tracker.snapshot().usage.outputTokens).toBe(4);
    const { h: retry } = harness(lookups(3).slice(2), [
      budgetMiddleware({ limits: { maxOutputTokens: 100 }, tracker }),
    ]);
    const resumed = await resume(retry, loaded);
    expect(resumed.error).toBeUndefined();
    // 4 calls in all, each counted once.
    expect(tracker.snapshot().usage.outputTokens).toBe(8);
  });

  it("contextualToolSelectionMiddleware: pending calls are checked against the request that produced them", async () => {
    type S = { lookupAllowed: boolean };
    const select = contextualToolSelectionMiddleware<S, undefined>(
      ({ toolName, state }) => toolName !== "lookup" || state.lookupAllowed,
    );
    const { h: first } = harness<S>([lookup("c1")], [select, pauseAfterModelCall(1)]);
    const paused = await start(first, { lookupAllowed: true });
    expect(paused.middlewareState).toEqual({ contextual_tool_selection: { hidden: [] } });

    // The state changed while paused: lookup is no longer selected, but c1 was asked for when it was.
    const again = contextualToolSelectionMiddleware<S, undefined>(
      ({ toolName, state }) => toolName !== "lookup" || state.lookupAllowed,
    );
    const { h: fresh, model } = harness<S>(["done"], [again]);
    const resumed = await resume(fresh, throughJson(paused), { lookupAllowed: false });
    expect(resumed.error).toBeUndefined();
    expect(resumed.run.toolCalls).toBe(1);
    // The next request hides it.
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["flaky"]);
  });

  it("redactionMiddleware keeps no resumable state (a stream never spans a pause)", () => {
    const redaction = redactionMiddleware();
    expect(redaction.saveState).toBeUndefined();
    expect(redaction.restoreState).toBeUndefined();
  });
});

describe("PausedRun.middlewareState", () => {
  it("stays JSON round-trippable with every stateful library middleware", async () => {
    const { h } = harness(lookups(3), [
      modelCallLimitMiddleware({ runLimit: 10 }),
      toolCallLimitMiddleware({ runLimit: 10 }),
      noProgressMiddleware(),
      budgetMiddleware({ limits: { maxCost: 10 } }),
      contextualToolSelectionMiddleware({ deny: ["flaky"] }),
      pauseAfterModelCall(2),
    ]);
    const paused = await start(h);
    expect(Object.keys(paused.middlewareState ?? {}).sort()).toEqual([
      "budget",
      "contextual_tool_selection",
      "model_call_limit",
      "no_progress",
      "tool_call_limit",
    ]);
    expect(JSON.parse(JSON.stringify(paused))).toEqual(paused);
    expect(validatePausedRun(JSON.parse(JSON.stringify(paused)))).toEqual(paused);
  });

  it("is left out when no middleware saved anything; such a record (the old format) still resumes", async () => {
    const { h: first } = harness(lookups(3), [pauseAfterModelCall(2)]);
    const paused = await start(first);
    expect("middlewareState" in paused).toBe(false);
    // A harness with stateful middleware resumes it: they start from nothing.
    const { h: fresh } = harness(lookups(3).slice(2), [toolCallLimitMiddleware({ runLimit: 2 })]);
    const resumed = await resume(fresh, throughJson(paused));
    expect(resumed.error).toBeUndefined();
    expect(resumed.run.toolCalls).toBe(3);
  });

  it("entries of middleware the resuming harness lacks, or that cannot restore, are ignored", async () => {
    const saveOnly: Middleware<undefined, undefined> = { name: "save_only", saveState: () => ({ n: 1 }) };
    const { h: first } = harness(lookups(3), [
      saveOnly,
      modelCallLimitMiddleware({ runLimit: 10 }),
      pauseAfterModelCall(2),
    ]);
    const paused = await start(first);
    expect(paused.middlewareState).toEqual({ save_only: { n: 1 }, model_call_limit: { calls: 2 } });
    const { h: fresh } = harness(lookups(3).slice(2), [saveOnly]);
    const resumed = await resume(fresh, throughJson(paused));
    expect(resumed.error).toBeUndefined();
    expect(resumed.run.stopReason).toBe("completed");
  });

  it("malformed: validatePausedRun names the field; a bad entry fails the resume naming the middleware", async () => {
    const { h: first } = harness(lookups(3), [
      toolCallLimitMiddleware({ runLimit: 5 }),
      pauseAfterModelCall(2),
    ]);
    const paused = await start(first);
    for (const bad of [[], "x", null, 3]) {
      expect(() => validatePausedRun({ ...paused, middlewareState: bad })).toThrow(
        expect.objectContaining({
          code: "validation",
          message: expect.stringContaining("PausedRun.middlewareState"),
        }),
      );
    }
    expect(() => validatePausedRun({ ...paused, middlewareState: { m: { n: Number.NaN } } })).toThrow(
      /PausedRun\.middlewareState\.m\.n/,
    );
    const { h: fresh } = harness(lookups(3).slice(2), [toolCallLimitMiddleware({ runLimit: 5 })]);
    await expect(
      lowerLayer(fresh).resume(undefined, undefined, {
        ...paused,
        middlewareState: { tool_call_limit: { total: "many", byTool: [] } },
      }),
    ).rejects.toMatchObject({
      code: "validation",
      message: expect.stringContaining("PausedRun.middlewareState.tool_call_limit.total"),
    });
  });

  it("custom hooks: restoreState runs before anything else; failures name the middleware and hook", async () => {
    const seen: string[] = [];
    const custom = (label: string): Middleware<undefined, undefined> => ({
      name: "custom",
      saveState: () => ({ label }),
      restoreState: (_ctx, saved) => {
        seen.push(`restore ${JSON.stringify(saved)}`);
      },
      beforeModel: () => {
        seen.push("beforeModel");
      },
      beforeTool: () => {
        seen.push("beforeTool");
      },
    });
    const { h: first } = harness(lookups(2), [custom("first"), pauseAfterModelCall(1)]);
    const paused = await start(first);
    seen.length = 0;
    const { h: fresh } = harness(lookups(2).slice(1), [custom("fresh")]);
    expect((await resume(fresh, throughJson(paused))).error).toBeUndefined();
    expect(seen.slice(0, 2)).toEqual(['restore {"label":"first"}', "beforeTool"]);

    const nonJson: Middleware<undefined, undefined> = {
      name: "bad_save",
      saveState: () => new Map() as never,
    };
    const { h: badSave } = harness(lookups(2), [nonJson, pauseAfterModelCall(1)]);
    const failed = await lowerLayer(badSave).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "r1" },
      "go",
      {
        steering: SteeringHandle.allowAll(),
      },
    );
    expect(failed.error?.code).toBe("validation");
    expect(failed.error?.message).toContain("PausedRun.middlewareState.bad_save");

    const throwing: Middleware<undefined, undefined> = {
      name: "custom",
      restoreState: () => {
        throw new Error("corrupt");
      },
    };
    const { h: badRestore } = harness(lookups(2).slice(1), [throwing]);
    await expect(lowerLayer(badRestore).resume(undefined, undefined, paused)).rejects.toMatchObject({
      code: "middleware",
      details: { middleware: "custom", hook: "restoreState" },
    });
  });

  it("two stateful middleware with one name are refused at use(); stateless ones may share a name", () => {
    const { h } = harness([]);
    h.use(toolCallLimitMiddleware({ runLimit: 1 }));
    expect(() => h.use(toolCallLimitMiddleware({ perTool: { lookup: 1 } }))).toThrow(
      expect.objectContaining({ code: "validation", message: expect.stringContaining('"tool_call_limit"') }),
    );
    h.use(toolCallLimitMiddleware({ perTool: { lookup: 1 }, name: "lookup_limit" }));
    h.use({ name: "log" }).use({ name: "log" });
  });
});
