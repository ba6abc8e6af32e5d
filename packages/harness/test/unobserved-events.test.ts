import type { EventRecord } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./helpers.js";

/**
 * The loop builds its per-step events (`route.selected`, `model.started`, `usage.recorded`,
 * `model.completed`, `tool.started`, `tool.completed`, `state.updated`) only while someone listens
 * to the run's sink (docs/performance.md). Skipping one still takes its offset: event ids, the
 * status record's `lastEventId` and a listener that subscribes mid-run see the same numbering as
 * a run observed from the start.
 */
async function runTwoToolTurns(observe: "always" | "never" | "from the second tool call") {
  const { harness } = makeHarness();
  let toolCalls = 0;
  const records: EventRecord[] = [];
  const layer = lowerLayer(harness);
  const ctx = layer.createContext({ runId: "unobserved" }, undefined);
  const listen = () => ctx.events.subscribe((record) => records.push(record));
  if (observe === "always") listen();
  harness
    .registerModel(
      "m",
      new ScriptedModel([
        { toolCalls: [{ name: "echo", arguments: { n: 1 } }] },
        { toolCalls: [{ name: "echo", arguments: { n: 2 } }] },
        "done",
      ]),
    )
    .registerTool(
      FakeTool.of("echo", () => {
        toolCalls++;
        if (toolCalls === 2 && observe === "from the second tool call") listen();
        return "ok";
      }),
    )
    .setDefaultModel("m");
  const { status } = await layer.invokeInContextWithStatus(undefined, ctx, "go");
  return { records, status, offset: ctx.events.offset };
}

describe("per-step events nobody listens to", () => {
  it("take their offsets: an unobserved run numbers its events as an observed one does", async () => {
    const observed = await runTwoToolTurns("always");
    const unobserved = await runTwoToolTurns("never");

    expect(unobserved.records).toEqual([]);
    expect(unobserved.offset).toBe(observed.offset);
    expect(observed.records.map((r) => r.offset)).toEqual([...Array(observed.offset).keys()]);
    expect(unobserved.status.lastEventId).toBe(observed.status.lastEventId);
    expect(unobserved.status.lastEventId).toBe(`unobserved-evt-${observed.offset - 1}`);
  });

  it("a listener that subscribes mid-run gets the events from then on, with their usual ids", async () => {
    const observed = await runTwoToolTurns("always");
    const late = await runTwoToolTurns("from the second tool call");

    const first = late.records[0] as EventRecord;
    // The second tool call is under way when the listener subscribes: its `tool.completed` is the
    // first event it hears, then the rest of the run, exactly as the fully observed run saw them.
    expect(first.event).toMatchObject({ type: "tool.completed", callId: expect.any(String) });
    const tail = observed.records.slice(observed.records.findIndex((r) => r.id === first.id));
    expect(late.records.map((r) => [r.id, r.event.type])).toEqual(tail.map((r) => [r.id, r.event.type]));
    expect(late.records.map((r) => r.event.type)).toContain("model.completed");
    expect(late.records.at(-1)?.event.type).toBe("run.completed");
  });
});
