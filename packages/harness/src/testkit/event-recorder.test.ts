import { emptyUsageTotals } from "@tinyagents/inference";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { AgentEventOf } from "../contracts/agent-event.js";
import { emptyCost } from "../cost/cost.js";
import { type EventScope, EventSink } from "../events/event-sink.js";
import { EventRecorder } from "./event-recorder.js";

const scope: EventScope = { runId: "run-1", rootRunId: "run-1", depth: 0 };

function emitRun(sink: EventSink): void {
  sink.emit(scope, { type: "run.started", input: 1 });
  sink.emit(scope, { type: "tool.started", callId: "call-1", toolName: "search", arguments: { q: "x" } });
  sink.emit(scope, {
    type: "run.completed",
    modelCalls: 1,
    toolCalls: 1,
    usage: emptyUsageTotals(),
    cost: emptyCost(),
  });
}

describe("EventRecorder", () => {
  it("records events from an attached sink until detached", () => {
    const sink = new EventSink("run-1", { now: () => 42 });
    const recorder = new EventRecorder();
    const detach = recorder.attach(sink);
    emitRun(sink);
    detach();
    sink.emit(scope, { type: "run.started", input: 2 });
    expect(recorder.types()).toEqual(["run.started", "tool.started", "run.completed"]);
    expect(recorder.records[0]).toMatchObject({
      id: "run-1-evt-0",
      offset: 0,
      ts: 42,
      runId: "run-1",
      depth: 0,
    });
    expect(recorder.events[1]).toEqual({
      type: "tool.started",
      callId: "call-1",
      toolName: "search",
      arguments: { q: "x" },
    });
  });

  it("exposes a listener usable directly with sink.subscribe", () => {
    const sink = new EventSink("run-1");
    const recorder = new EventRecorder();
    sink.subscribe(recorder.listener);
    emitRun(sink);
    expect(recorder.records).toHaveLength(3);
  });

  it("filters by type with narrowed types", () => {
    const sink = new EventSink("run-1");
    const recorder = new EventRecorder();
    recorder.attach(sink);
    emitRun(sink);
    const started = recorder.ofType("tool.started");
    expectTypeOf(started).toEqualTypeOf<AgentEventOf<"tool.started">[]>();
    expect(started.map((event) => event.toolName)).toEqual(["search"]);
    expect(recorder.recordsOfType("run.started")[0]?.event.input).toBe(1);
    expect(recorder.ofType("model.started")).toEqual([]);
  });

  it("builds a trajectory and can be cleared", () => {
    const sink = new EventSink("run-1");
    const recorder = new EventRecorder();
    recorder.attach(sink);
    emitRun(sink);
    recorder.trajectory().assertToolCalled("search", { q: "x" });
    recorder.trajectory().assertCompleted();
    recorder.clear();
    expect(recorder.records).toEqual([]);
    sink.emit(scope, { type: "run.started", input: 3 });
    expect(recorder.types()).toEqual(["run.started"]);
  });
});
