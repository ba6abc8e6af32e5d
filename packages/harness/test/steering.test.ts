/**
 * Acceptance: runtime steering. Pause mid-run, persist the PausedRun in a store, load it in a
 * fresh harness instance and resume: the final transcript equals an uninterrupted run's.
 * Cancel keeps the partial transcript; a disallowed batch is rejected whole; commands work from
 * tests, middleware and a parent agent steering its child.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentHarness,
  type AgentRun,
  EventSink,
  type Middleware,
  PausedRunStore,
  runText,
  SteeringHandle,
  SteeringPolicy,
  SubAgent,
  SubAgentTool,
} from "@tinyagents/harness";
import { validatePausedRun } from "@tinyagents/harness/durability";
import { lowerLayer } from "@tinyagents/harness/internal";
import { FileKeyValueStore } from "@tinyagents/harness/node";
import type { RunSteering } from "@tinyagents/harness/steering";
import {
  DeterministicClock,
  DeterministicIds,
  EventRecorder,
  FakeTool,
  ScriptedModel,
  type ScriptStep,
} from "@tinyagents/harness/testkit";
import { text, usage, user } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT: ScriptStep[] = [
  { toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "a" } }] },
  { toolCalls: [{ id: "c2", name: "lookup", arguments: { q: "b" } }] },
  "answer: a+b",
];

function harness(steps: ScriptStep[], middleware: Middleware<undefined, undefined>[] = []) {
  const h = new AgentHarness<undefined, undefined>({
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
    instructions: "You look things up.",
  });
  const model = new ScriptedModel(steps, { usage: usage({ inputTokens: 10, outputTokens: 2 }) });
  h.registerModel("m", model, { pricing: { inputPerMillion: 1, outputPerMillion: 1 } });
  h.registerTool(FakeTool.of("lookup", (args) => `found ${String((args as { q: string }).q)}`));
  for (const m of middleware) h.use(m);
  return { h, model };
}

async function run(h: AgentHarness<undefined, undefined>, steering?: SteeringHandle) {
  const sink = new EventSink("r1");
  const events = new EventRecorder();
  events.attach(sink);
  const outcome = await lowerLayer(h).invokeCollectingPartial(
    undefined,
    undefined,
    { runId: "r1", threadId: "t1" },
    "look up a and b",
    {
      events: sink,
      ...(steering === undefined ? {} : { steering }),
    },
  );
  return { ...outcome, events };
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A middleware that sends a steering command after the model's `n`-th call. */
function afterModelCall(n: number, send: (handle: RunSteering) => void): Middleware<undefined, undefined> {
  let calls = 0;
  return {
    name: "steer-after-model",
    afterModel: (ctx) => {
      if (++calls === n && ctx.run.steering !== undefined) send(ctx.run.steering);
    },
  };
}

describe("pause, persist, resume", () => {
  const cases = [
    // Paused after the 1st model call, in front of its tool batch: the tool call is pending.
    { name: "before a tool batch", pauseAfter: 1, pending: 1, rest: SCRIPT.slice(1) },
    // Paused by a tool during the 2nd batch: drained at the checkpoint before the 3rd model call.
    { name: "before a model call", pauseAfter: 0, pending: 0, rest: SCRIPT.slice(2) },
  ];
  for (const c of cases) {
    it(`pausing ${c.name} and resuming in a fresh harness gives the uninterrupted transcript`, async () => {
      const baseline = await run(harness(SCRIPT).h);
      expect(baseline.error).toBeUndefined();

      const handle = SteeringHandle.allowAll();
      const { h: first } =
        c.pauseAfter > 0
          ? harness(SCRIPT, [afterModelCall(c.pauseAfter, (s) => s.pauseWith("needs review"))])
          : harness(SCRIPT);
      if (c.pauseAfter === 0) {
        first.registerTool(
          FakeTool.of("lookup", (args, ctx) => {
            const q = String((args as { q: string }).q);
            if (q === "b") ctx.run.steering?.pauseWith("needs review");
            return `found ${q}`;
          }),
        );
      }
      const paused = await run(first, handle);
      expect(paused.error).toBeUndefined();
      expect(paused.status.status).toBe("interrupted");
      expect(paused.run.stopReason).toBe("interrupted");
      expect(paused.events.ofType("run.interrupted")).toEqual([
        { type: "run.interrupted", reason: "needs review" },
      ]);
      expect(paused.events.ofType("run.completed")).toEqual([]);
      expect(paused.events.ofType("steering.applied")).toEqual([
        { type: "steering.applied", command: "pause", accepted: true },
      ]);
      expect(handle.isPaused).toBe(true);
      const pausedRun = paused.run.paused;
      if (pausedRun === undefined) throw new Error("expected run.paused");
      expect(pausedRun.pendingToolCalls).toHaveLength(c.pending);
      expect(pausedRun.reason).toBe("needs review");
      expect(JSON.parse(JSON.stringify(pausedRun))).toEqual(pausedRun);

      // Persist through a file store; load through another store instance on the same directory.
      const dir = await mkdtemp(join(tmpdir(), "tinyagents-pause-"));
      dirs.push(dir);
      await new PausedRunStore(new FileKeyValueStore(dir)).save(pausedRun);
      const loaded = await new PausedRunStore(new FileKeyValueStore(dir)).require("r1");

      const { h: fresh, model } = harness(c.rest);
      const sink = new EventSink("r1-resumed");
      const events = new EventRecorder();
      events.attach(sink);
      const resumed = await lowerLayer(fresh).resumeCollectingPartial(undefined, undefined, loaded, {
        events: sink,
        steering: handle,
      });
      expect(resumed.error).toBeUndefined();
      expect(handle.isPaused).toBe(false);
      model.assertConsumed();

      expect(resumed.run.messages).toEqual(baseline.run.messages);
      expect(runText(resumed.run)).toBe("answer: a+b");
      expect(resumed.run.runId).toBe("r1");
      expect(resumed.run.modelCalls).toBe(baseline.run.modelCalls);
      expect(resumed.run.toolCalls).toBe(baseline.run.toolCalls);
      expect(resumed.run.usage).toEqual(baseline.run.usage);
      expect(resumed.run.cost).toEqual(baseline.run.cost);
      expect(resumed.run.steps).toEqual(baseline.run.steps);
      expect(resumed.status.status).toBe("completed");
      expect(resumed.status.modelCalls).toBe(baseline.status.modelCalls);
      expect(resumed.status.usage).toEqual(baseline.status.usage);
      expect(events.ofType("run.resumed")).toEqual([
        {
          type: "run.resumed",
          modelCalls: pausedRun.modelCalls,
          toolCalls: pausedRun.toolCalls,
          pendingToolCalls: c.pending,
          usage: pausedRun.usage,
          cost: pausedRun.cost,
        },
      ]);
    });
  }

  it("resumeStreaming streams the continued run (deltas included) and ends like resume", async () => {
    const baseline = await run(harness(SCRIPT).h);
    const { h: first } = harness(SCRIPT, [afterModelCall(1, (s) => s.pauseWith("check"))]);
    const paused = await run(first, SteeringHandle.allowAll());
    const pausedRun = paused.run.paused;
    if (pausedRun === undefined) throw new Error("expected run.paused");
    const { h: fresh } = harness(SCRIPT.slice(1));
    const types: string[] = [];
    let streamed = "";
    let final: AgentRun | undefined;
    for await (const item of lowerLayer(fresh).resumeStreaming(undefined, undefined, pausedRun)) {
      if (item.type === "event") {
        types.push(item.record.event.type);
        const e = item.record.event;
        if (e.type === "model.text_delta") streamed += e.text;
        expect(item.record.runId).toBe("r1");
      } else if (item.type === "completed") final = item.run;
      else throw item.error;
    }
    expect(types.slice(0, 2)).toEqual(["run.started", "run.resumed"]);
    expect(types.at(-1)).toBe("run.completed");
    expect(streamed).toContain("answer: a+b");
    expect(final?.messages).toEqual(baseline.run.messages);
    expect(() => lowerLayer(fresh).resumeStreaming(undefined, undefined, { version: 9 } as never)).toThrow(
      /PausedRun/,
    );
  });

  it("resume keeps counting against the run's caps", async () => {
    const { h: first } = harness(SCRIPT, [afterModelCall(1, (s) => s.pause())]);
    const paused = await run(first, SteeringHandle.allowAll());
    const { h: fresh } = harness(SCRIPT.slice(1));
    const resumed = await lowerLayer(fresh).resumeCollectingPartial(undefined, undefined, {
      ...(paused.run.paused as NonNullable<AgentRun["paused"]>),
      config: {
        ...(paused.run.paused?.config as NonNullable<AgentRun["paused"]>["config"]),
        maxModelCalls: 2,
      },
    });
    expect(resumed.error?.code).toBe("limit_exceeded");
    expect(resumed.run.modelCalls).toBe(2);
  });

  it("rejects a malformed PausedRun with a validation error naming the field", async () => {
    const { h } = harness([]);
    await expect(
      lowerLayer(h).resume(undefined, undefined, { version: 2 } as unknown as NonNullable<
        AgentRun["paused"]
      >),
    ).rejects.toMatchObject({ code: "validation", message: expect.stringContaining("PausedRun.version") });
    expect(() => validatePausedRun("nope")).toThrow(/PausedRun must be an object/);
  });
});

describe("steering commands", () => {
  it("cancel ends the run as cancelled and keeps the partial transcript", async () => {
    const { h } = harness(SCRIPT, [afterModelCall(2, (s) => s.cancel("user hit stop"))]);
    const out = await run(h, SteeringHandle.allowAll());
    expect(out.error?.code).toBe("cancelled");
    expect(out.error?.message).toContain("user hit stop");
    expect(out.status.status).toBe("cancelled");
    // Input, two assistant turns, the first tool result: the second batch never ran.
    expect(out.run.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(out.events.ofType("steering.applied")).toEqual([
      { type: "steering.applied", command: "cancel", accepted: true },
    ]);
  });

  it("rejects a batch with a disallowed kind whole: steering error, nothing applied", async () => {
    const policy = new SteeringPolicy().allow("injectMessage");
    const handle = new SteeringHandle(policy);
    handle.injectMessage(user("ignored too")).setMetadata({ k: "v" });
    const { h, model } = harness(SCRIPT);
    const out = await run(h, handle);
    expect(out.error?.code).toBe("steering");
    expect(out.error?.message).toContain("setMetadata not allowed");
    expect(out.error?.message).toContain("allowed: injectMessage");
    expect(out.events.ofType("steering.applied")).toEqual([
      { type: "steering.applied", command: "injectMessage", accepted: false },
      { type: "steering.applied", command: "setMetadata", accepted: false },
    ]);
    expect(out.run.messages.map((m) => text(m))).toEqual(["look up a and b"]);
    expect(model.callCount).toBe(0);
  });

  it("a default policy allows nothing", async () => {
    const { h } = harness(SCRIPT);
    const out = await run(h, new SteeringHandle().pause());
    expect(out.error?.code).toBe("steering");
    expect(out.error?.message).toContain("allowed: nothing");
  });

  it("inject, redirect and setMetadata from middleware; messages sent during a batch wait for its results", async () => {
    let seenMetadata: unknown;
    const { h, model } = harness(SCRIPT, [
      afterModelCall(1, (s) => s.injectMessage(user("also check c")).redirect("prefer short answers")),
      afterModelCall(2, (s) => s.setMetadata({ reviewer: "ana" })),
      {
        name: "read-metadata",
        beforeModel: (ctx) => {
          seenMetadata = ctx.run.config.metadata;
        },
      },
    ]);
    const out = await run(h, SteeringHandle.allowAll());
    expect(out.error).toBeUndefined();
    expect(out.run.messages.map((m) => `${m.role}:${text(m)}`)).toEqual([
      "user:look up a and b",
      "assistant:",
      "tool:found a",
      "user:also check c",
      "user:[steering:redirect] prefer short answers",
      "assistant:",
      "tool:found b",
      "assistant:answer: a+b",
    ]);
    expect(seenMetadata).toEqual({ reviewer: "ana" });
    // The second model call saw the held messages after the tool result.
    expect(model.requests[1]?.messages.slice(-3).map((m) => m.role)).toEqual(["tool", "user", "user"]);
  });

  it("resume in the same batch cancels a pause", async () => {
    const { h } = harness(SCRIPT, [afterModelCall(1, (s) => s.pause().resume())]);
    const out = await run(h, SteeringHandle.allowAll());
    expect(out.error).toBeUndefined();
    expect(out.status.status).toBe("completed");
  });

  it("malformed commands are rejected at send", () => {
    const handle = SteeringHandle.allowAll();
    expect(() => handle.redirect("  ")).toThrow(/non-empty `instruction`/);
    expect(() => handle.send({ kind: "jump" } as never)).toThrow(/unknown steering command kind "jump"/);
  });

  it("a parent agent steers its child: the child pauses and the parent gets an incomplete-work error result", async () => {
    const clock = new DeterministicClock();
    const ids = new DeterministicIds();
    const childHandle = SteeringHandle.allowAll();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const child = new SubAgent({
      name: "worker",
      description: "works",
      steering: childHandle,
      harness: new AgentHarness<undefined, undefined>({ clock, ids })
        .registerModel(
          "m",
          new ScriptedModel([{ toolCalls: [{ id: "w-1", name: "wait" }] }, "never reached"]),
        )
        .registerTool(
          FakeTool.of("wait", async () => {
            await gate;
            return "waited";
          }),
        ),
    });
    const parent = new AgentHarness<undefined, undefined>({ clock, ids })
      .registerModel(
        "m",
        new ScriptedModel([
          {
            toolCalls: [
              { id: "p-1", name: "worker", arguments: { input: "work" } },
              { id: "p-2", name: "supervise" },
            ],
          },
          "ok, it paused",
        ]),
      )
      .registerTool(new SubAgentTool(child))
      .registerTool(
        FakeTool.of("supervise", () => {
          childHandle.pauseWith("parent wants a review");
          release();
          return "sent";
        }),
      );
    const out = await lowerLayer(parent).invokeCollectingPartial(undefined, undefined, { runId: "p" }, "go");
    expect(out.error).toBeUndefined();
    const worker = out.run.messages.find((m) => m.role === "tool" && m.toolName === "worker");
    expect(worker?.role === "tool" && worker.isError).toBe(true);
    expect(text(worker)).toContain("was paused before finishing (parent wants a review)");
    expect(out.run.children?.[0]).toMatchObject({ name: "worker", status: "interrupted" });
    expect(childHandle.pauseState).toMatchObject({ runId: "worker-d1-1", reason: "parent wants a review" });
  });
});
