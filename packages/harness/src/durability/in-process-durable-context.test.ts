import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { DurableContext, DurableValue } from "../contracts/durable-context.js";
import { InMemoryKeyValueStore } from "../store/key-value-store.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { CONFORMANCE_INPUT } from "../testkit/durable-conformance/conformance-model.js";
import { createConformanceAgent } from "../testkit/durable-conformance/scenario-agent.js";
import { CheckpointStore } from "./checkpoint-store.js";
import { approvalSignalName, isApprovalSignal } from "./durable-signals.js";
import { InProcessDurableContext } from "./in-process-durable-context.js";

describe("InProcessDurableContext", () => {
  it("calls steps and children straight through; now and randomId are the run's clock and ids", async () => {
    const clock = new DeterministicClock({ start: 1_000 });
    const durable = new InProcessDurableContext({ clock, ids: new DeterministicIds() });
    let runs = 0;
    const step = () => Promise.resolve(++runs);
    expect(await durable.step("tool:a", step, { kind: "tool" })).toBe(1);
    expect(await durable.step("tool:a", step, { kind: "tool" })).toBe(2);
    expect(await durable.child("child:x", step)).toBe(3);
    expect(durable.now()).toBe(1_000);
    expect([durable.randomId("run"), durable.randomId("run"), durable.randomId()]).toEqual([
      "run-1",
      "run-2",
      "id-1",
    ]);
    expect(durable.engine).toBe("in-process");
  });

  it("awaitSignal: a signal completes a pending wait once; one sent first is kept for the next wait", async () => {
    const durable = new InProcessDurableContext();
    const waiting = durable.awaitSignal("approval:r/c1");
    expect(durable.signal("approval:r/c1", { decision: "approve" })).toBe(true);
    expect(await waiting).toEqual({ decision: "approve" });
    expect(durable.signal("early", 7)).toBe(false);
    expect(await durable.awaitSignal("early")).toBe(7);
    // Consumed: a second wait on the same name waits again (here until its timeout).
    const clock = new DeterministicClock();
    const timed = new InProcessDurableContext({ clock });
    const second = timed.awaitSignal("late", { timeoutMs: 500 });
    await expect(timed.awaitSignal("late")).rejects.toMatchObject({ code: "conflict" });
    clock.advance(500);
    expect(await second).toBeUndefined();
    expect(timed.signal("late", 1)).toBe(false);
  });

  it("with a checkpoint store, intent and result steps of a once call are kept as its ToolIntent and replayed", async () => {
    const checkpoints = new CheckpointStore(new InMemoryKeyValueStore());
    const durable = new InProcessDurableContext({ checkpoints, runId: "r1" });
    let executed = 0;
    const intent = { runId: "r1", callId: "c1", toolName: "pay", startedAt: 5 };
    expect(await durable.step("intent:c1", async () => intent, { kind: "intent" })).toEqual(intent);
    expect(await checkpoints.intent("r1", "c1")).toEqual(intent);
    // The process "dies" here; a recovered run (a new context over the same store) replays the intent.
    const again = new InProcessDurableContext({ checkpoints, runId: "r1" });
    const replayed = await again.step(
      "intent:c1",
      async () => {
        executed++;
        return { runId: "r1", callId: "c1", toolName: "pay", startedAt: 99 };
      },
      { kind: "intent" },
    );
    expect(replayed).toEqual(intent);
    expect(executed).toBe(0);
    const result = { callId: "c1", toolName: "pay", content: "paid", isError: false, elapsedMs: 1 };
    expect(await again.step("result:c1", async () => result, { kind: "result" })).toEqual(result);
    expect(
      await again.step("result:c1", async () => ({ ...result, content: "twice" }), { kind: "result" }),
    ).toEqual(result);
    expect((await checkpoints.intent("r1", "c1"))?.result).toEqual(result);
  });

  it("approval signals: names and values", () => {
    expect(approvalSignalName("run-1/call_deploy")).toBe("approval:run-1/call_deploy");
    expect(isApprovalSignal({ decision: "approve" })).toBe(true);
    expect(isApprovalSignal({ decision: "reject", reason: "no" })).toBe(true);
    expect(isApprovalSignal({ decision: "reject" })).toBe(false);
    expect(isApprovalSignal("approve")).toBe(false);
  });
});

describe("the durable run option", () => {
  it("a run given a durable context takes its run id and start time from it", async () => {
    const calls: string[] = [];
    const engine: DurableContext = {
      engine: "test-engine",
      step: (name, fn) => {
        calls.push(name);
        return fn();
      },
      now: () => {
        calls.push("now");
        return 1_700_000_000_000;
      },
      randomId: (prefix) => {
        calls.push(`randomId:${prefix}`);
        return `${prefix}-from-engine`;
      },
      awaitSignal: <T extends DurableValue>() => Promise.resolve({ decision: "approve" } as unknown as T),
      child: (_name, fn) => fn(),
    };
    const { agent } = createConformanceAgent({ modelDelayMs: 0, toolDelayMs: 0 });
    const run = await agent.run(CONFORMANCE_INPUT, { durable: engine });
    expect(run.runId).toBe("run-from-engine");
    expect(calls.slice(0, 2)).toEqual(["randomId:run", "now"]);
  });

  it("rejects a durable option that is not a DurableContext, naming the field", async () => {
    const { agent } = createConformanceAgent({ modelDelayMs: 0, toolDelayMs: 0 });
    let thrown: unknown;
    try {
      await agent.run("x", { durable: {} as DurableContext });
    } catch (error) {
      thrown = error;
    }
    expect(TinyAgentsError.isInstance(thrown)).toBe(true);
    expect((thrown as TinyAgentsError).code).toBe("validation");
    expect((thrown as TinyAgentsError).details).toEqual({ field: "durable" });
  });
});
