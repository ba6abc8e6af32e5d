import { describe, expect, it } from "vitest";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { RunContext } from "../contracts/run-context.js";
import { EventSink } from "../events/event-sink.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import { type AgentStreamItem, streamItems } from "./stream-items.js";

const scope = { runId: "r", rootRunId: "r", depth: 0 };
const run = { runId: "r" } as unknown as AgentRun;
const status = { runId: "r" } as unknown as HarnessRunStatus;

/** A run the test drives: events go on `sink`, `end()` finishes it. */
function fakeRun() {
  const sink = new EventSink("r");
  const cancelled: unknown[] = [];
  const ctx = {
    events: sink,
    cancel: (reason: unknown) => cancelled.push(reason),
  } as unknown as RunContext<unknown>;
  let end!: () => void;
  const outcome = new Promise<RunOutcome>((resolve) => {
    end = () => resolve({ run, status } as RunOutcome);
  });
  const emit = (n: number) => sink.emit(scope, { type: "run.started", input: n });
  const items = streamItems(
    ctx,
    () => outcome,
    () => ({ run, status }),
    () => {},
  );
  return { items, emit, end, cancelled };
}

const kind = (item: AgentStreamItem) =>
  item.type === "event" ? (item.record.event as { input: number }).input : item.type;

describe("streamItems", () => {
  it("queues every event for next(), then the terminal item, then done", async () => {
    const { items, emit, end } = fakeRun();
    emit(1);
    emit(2);
    end();
    const seen: unknown[] = [];
    for (let step = await items.next(); !step.done; step = await items.next()) seen.push(kind(step.value));
    expect(seen).toEqual([1, 2, "completed"]);
  });

  it("forward: the queued items first, then each later item synchronously as it is emitted", async () => {
    const { items, emit, end } = fakeRun();
    emit(1);
    emit(2);
    const seen: unknown[] = [];
    items.forward((item) => seen.push(kind(item)));
    expect(seen).toEqual([1, 2]);
    emit(3);
    // Handed over inside the emit, not a promise job later.
    expect(seen).toEqual([1, 2, 3]);
    end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([1, 2, 3, "completed"]);
  });

  it("return() cancels the run and waits for it to end", async () => {
    const { items, end, cancelled } = fakeRun();
    const stopping = items.return?.();
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({ code: "cancelled" });
    end();
    await expect(stopping).resolves.toEqual({ done: true, value: undefined });
  });
});
