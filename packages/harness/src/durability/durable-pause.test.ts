import { user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import type { Middleware } from "../middleware/middleware.js";
import type { RunResult } from "../runtime/run-result.js";
import { SteeringHandle } from "../steering/steering-handle.js";
import { SteeringPolicy } from "../steering/steering-policy.js";
import { CONFORMANCE_INPUT } from "../testkit/durable-conformance/conformance-model.js";
import {
  type CrashPoint,
  type DurableJournal,
  ReplayDurableContext,
} from "../testkit/durable-conformance/replay-durable-context.js";
import {
  createConformanceAgent,
  expectedConformanceRun,
} from "../testkit/durable-conformance/scenario-agent.js";
import { resumeSignalName } from "./durable-signals.js";

const RUN = "run-pause";
const RESUME = resumeSignalName(RUN, 1);

interface Life {
  result?: RunResult;
  error?: unknown;
  events: EventRecord[];
}

/**
 * One worker running the conformance scenario (approvals decided by rule) on `durable`: a steering
 * `pause` is sent right after the first model turn (the run pauses in front of its tool batch);
 * `onInterrupted` answers the `run.interrupted` event (e.g. by sending the resume signal).
 */
async function live(
  durable: ReplayDurableContext,
  onInterrupted?: (durable: ReplayDurableContext) => void,
): Promise<Life> {
  const { agent } = createConformanceAgent({ modelDelayMs: 0, toolDelayMs: 0, autoApprove: true });
  const steering = new SteeringHandle(new SteeringPolicy(["pause", "resume"]));
  const events: EventRecord[] = [];
  let sent = false;
  const onEvent = (record: EventRecord) => {
    events.push(record);
    const { event } = record;
    if (event.type === "state.updated" && !sent) {
      sent = true;
      steering.send({ kind: "pause", reason: "operator look" });
    }
    if (event.type === "run.interrupted") onInterrupted?.(durable);
  };
  try {
    return { result: await agent.run(CONFORMANCE_INPUT, { runId: RUN, durable, steering, onEvent }), events };
  } catch (error) {
    return { error, events };
  }
}

const types = (events: EventRecord[]) => events.map((r) => r.event.type);

describe("a journaled run that pauses waits durably for its resume signal", () => {
  it("a steering pause waits on resume:<runId>/1; the signal continues the same run to the uninterrupted transcript", async () => {
    const engine = new ReplayDurableContext();
    let waited = false;
    const out = await live(engine, (d) => {
      // Deliver after the wait has started (a microtask later), like a human would.
      queueMicrotask(() => {
        waited = true;
        d.signal(RESUME, {});
      });
    });
    expect(out.error).toBeUndefined();
    expect(waited).toBe(true);
    const result = out.result as RunResult;
    const expected = await expectedConformanceRun(RUN);
    expect(result.messages).toEqual(expected.messages);
    expect(result.usage).toEqual(expected.usage);
    expect(result.cost).toEqual(expected.cost);
    expect(result.stopReason).toBe("completed");
    expect(result.paused).toBeUndefined();
    expect(engine.journal.signals).toEqual({ [RESUME]: {} });
    const seen = types(out.events);
    expect(seen.filter((t) => t === "run.interrupted")).toHaveLength(1);
    expect(seen.indexOf("run.interrupted")).toBeLessThan(seen.indexOf("run.resumed"));
    expect(seen.at(-1)).toBe("run.completed");
    // Each step ran once: no turn was redone by the pause.
    expect(engine.executed.filter((n) => n.startsWith("model:"))).toHaveLength(expected.modelCalls);
  });

  it("without its signal the run keeps waiting (it neither completes nor ends paused)", async () => {
    const engine = new ReplayDurableContext();
    let interrupted!: () => void;
    const reached = new Promise<void>((resolve) => {
      interrupted = resolve;
    });
    const running = live(engine, () => interrupted());
    await reached;
    let settled = false;
    void running.then(() => {
      settled = true;
    });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    engine.signal(RESUME, {});
    expect((await running).result?.stopReason).toBe("completed");
  });

  it("the resume signal's messages join the transcript after the paused tool batch; its metadata replaces the run's", async () => {
    const engine = new ReplayDurableContext();
    const note = user("Also mention the ticket number.");
    const out = await live(engine, (d) =>
      d.signal(RESUME, { messages: [note] as never, metadata: { ticket: "T-7" } }),
    );
    const result = out.result as RunResult;
    const expected = await expectedConformanceRun(RUN);
    // input (system-less transcript): user, assistant(fetch), tool(fetch), NOTE, ...
    const at = expected.messages.findIndex((m) => m.role === "tool") + 1;
    const want = [...expected.messages.slice(0, at), note, ...expected.messages.slice(at)];
    expect(result.messages).toEqual(want);
    expect(out.events.some((r) => r.event.type === "run.completed")).toBe(true);
  });

  it("a malformed resume value fails the run with a validation error naming the field", async () => {
    const engine = new ReplayDurableContext();
    const out = await live(engine, (d) => d.signal(RESUME, { approve: true }));
    expect(out.error).toMatchObject({ code: "validation" });
    expect(String((out.error as Error).message)).toContain("approve");
  });

  it("a worker crash during the pause wait: a fresh worker replays the journal, waits again, and the signal finishes the run exactly as uninterrupted", async () => {
    const crash: CrashPoint = { awaiting: RESUME };
    const first = new ReplayDurableContext({ crash });
    const died = await live(first);
    expect(first.dead).toBe(true);
    expect(died.result).toBeUndefined();
    const journal: DurableJournal = structuredClone(first.journal);
    const second = new ReplayDurableContext({ journal });
    const out = await live(second, (d) => queueMicrotask(() => d.signal(RESUME, {})));
    expect(out.error).toBeUndefined();
    const result = out.result as RunResult;
    const expected = await expectedConformanceRun(RUN);
    expect(result.messages).toEqual(expected.messages);
    expect(result.usage).toEqual(expected.usage);
    expect(result.cost).toEqual(expected.cost);
    // The first model turn was replayed, not run again; everything after the pause ran once.
    expect(second.executed).not.toContain(`model:${RUN}-model-1`);
    expect(second.executed).toContain(`model:${RUN}-model-2`);
    expect(second.journal.signals).toEqual({ [RESUME]: {} });
  });

  it("a crash after the resume: the replay takes the recorded signal and does not wait again", async () => {
    const first = new ReplayDurableContext({ crash: { during: `model:${RUN}-model-2` } });
    const died = await live(first, (d) => d.signal(RESUME, {}));
    expect(first.dead).toBe(true);
    expect(died.result).toBeUndefined();
    const second = new ReplayDurableContext({ journal: structuredClone(first.journal) });
    const out = await live(second);
    const expected = await expectedConformanceRun(RUN);
    expect(out.result?.messages).toEqual(expected.messages);
  });

  it("a middleware interrupt waits too, and each pause has its own signal (resume:<runId>/1, /2)", async () => {
    const engine = new ReplayDurableContext();
    const { agent } = createConformanceAgent({ modelDelayMs: 0, toolDelayMs: 0, autoApprove: true });
    // Interrupt before the 2nd and the 3rd model call (deterministic given the transcript).
    const interrupter: Middleware<unknown, undefined> = {
      name: "interrupter",
      beforeModel(ctx, request) {
        const tools = request.messages.filter((m) => m.role === "tool").length;
        const asked = request.messages.filter((m) => m.role === "user").length;
        if ((tools === 1 || tools === 2) && asked === tools) {
          ctx.run.requestControl({ kind: "interrupt", reason: `check ${tools}` });
        }
      },
    };
    agent.use(interrupter);
    const reasons: string[] = [];
    const result = await agent.run(CONFORMANCE_INPUT, {
      runId: RUN,
      durable: engine,
      onEvent: (r) => {
        if (r.event.type !== "run.interrupted") return;
        reasons.push(r.event.reason);
        // A note per pause keeps the interrupter from asking twice at the same point.
        engine.signal(resumeSignalName(RUN, reasons.length), {
          messages: [user(`ok ${reasons.length}`)] as never,
        });
      },
    });
    expect(reasons).toEqual(["check 1", "check 2"]);
    expect(Object.keys(engine.journal.signals)).toEqual([resumeSignalName(RUN, 1), resumeSignalName(RUN, 2)]);
    expect(result.stopReason).toBe("completed");
  });
});

describe("the engine's resumeTimeoutMs", () => {
  it("when it passes first, the run ends paused as in process (run.paused, stop reason interrupted)", async () => {
    let fire: (() => void) | undefined;
    let asked: number | undefined;
    // A clock whose timers fire only when the test says so (no real time involved).
    const clock = {
      now: () => 1_700_000_000_000,
      sleep: () => new Promise<void>(() => {}),
      setTimer(ms: number, callback: () => void) {
        asked = ms;
        fire = callback;
        return { cancel: () => undefined };
      },
    };
    class TimedReplay extends ReplayDurableContext {
      readonly resumeTimeoutMs = 60_000;
    }
    const engine = new TimedReplay({ clock });
    const out = await live(engine, () => queueMicrotask(() => fire?.()));
    expect(asked).toBe(60_000);
    const result = out.result as RunResult;
    expect(result.stopReason).toBe("interrupted");
    expect(result.paused?.reason).toBe("operator look");
    expect(result.paused?.pendingToolCalls.map((c) => c.name)).toEqual(["fetch_order"]);
    expect(types(out.events).filter((t) => t === "run.interrupted")).toHaveLength(1);
    expect(types(out.events)).not.toContain("run.completed");
  });
});

describe("in process nothing changes", () => {
  it("a steering pause ends the run paused (run.paused), no wait", async () => {
    const { agent } = createConformanceAgent({ modelDelayMs: 0, toolDelayMs: 0, autoApprove: true });
    const steering = new SteeringHandle(new SteeringPolicy(["pause"]));
    let sent = false;
    const result = await agent.run(CONFORMANCE_INPUT, {
      runId: RUN,
      steering,
      onEvent: (r) => {
        if (r.event.type === "state.updated" && !sent) {
          sent = true;
          steering.send({ kind: "pause" });
        }
      },
    });
    expect(result.stopReason).toBe("interrupted");
    expect(result.paused?.pendingToolCalls.map((c) => c.name)).toEqual(["fetch_order"]);
  });
});
