import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { CheckpointStore } from "../durability/checkpoint-store.js";
import { EventSink } from "../events/event-sink.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { InMemoryKeyValueStore } from "../store/key-value-store.js";
import { FakeTool } from "../testkit/fake-tool.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { attachObservability } from "./attach-observability.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";

// Issue 37 item 9: a run whose journal or status cannot be written says so, instead of
// completing as if its record were safe.

const scope = { runId: "r", rootRunId: "r", depth: 0 };
const started = (input: string) => ({ type: "run.started", input }) as never;

const full = () => new TinyAgentsError("storage", "SQLite: could not append in /data/t.db (SQLITE_FULL)");

/** A journal that fails every write once `failing` is set. */
function flakyJournal() {
  const journal = new InMemoryEventJournal();
  const state = { failing: false };
  const append = journal.append.bind(journal);
  const appendMany = journal.appendMany.bind(journal);
  Object.assign(journal, {
    append: async (...args: Parameters<typeof append>) =>
      state.failing ? Promise.reject(full()) : append(...args),
    appendMany: async (...args: Parameters<typeof appendMany>) =>
      state.failing ? Promise.reject(full()) : appendMany(...args),
  });
  return { journal, state };
}

describe("flush after a failed journal or status write", () => {
  it("rejects with the storage error once, then acknowledges again; close never rejects", async () => {
    const { journal, state } = flakyJournal();
    const errors: unknown[] = [];
    const events = new EventSink("r");
    const observed = attachObservability(events, { journal, onError: (e) => errors.push(e) });
    state.failing = true;
    events.emit(scope, started("hi"));
    await expect(observed.flush()).rejects.toMatchObject({
      code: "storage",
      message: expect.stringContaining("SQLITE_FULL"),
    });
    expect(errors[0]).toMatchObject({ code: "storage" }); // onError still hears of it
    state.failing = false;
    events.emit(scope, started("again"));
    await expect(observed.flush()).resolves.toBeUndefined();
    state.failing = true;
    events.emit(scope, started("lost"));
    await expect(observed.close()).resolves.toBeUndefined();
  });

  it("a durable run whose journal cannot be written fails with storage at its first checkpoint", async () => {
    const { journal, state } = flakyJournal();
    state.failing = true;
    const statusStore = new InMemoryHarnessStatusStore();
    const events = new EventSink("run-full");
    const observed = attachObservability(events, { journal, statusStore, onError: () => {} });
    const tool = FakeTool.returning("look", "seen");
    const harness = new AgentHarness()
      .registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ id: "c1", name: "look", arguments: {} }] }, "done"]),
      )
      .registerTool(tool);
    const outcome = await lowerLayer(harness)
      .invoke(undefined, undefined, { runId: "run-full" }, "go", {
        events,
        durability: {
          checkpoints: new CheckpointStore(new InMemoryKeyValueStore()),
          flush: () => observed.flush(),
        },
      })
      .then(
        () => "completed",
        (error: unknown) => error,
      );
    await observed.close();
    expect(outcome).toMatchObject({ code: "storage", message: expect.stringContaining("SQLITE_FULL") });
    expect(tool.calls).toHaveLength(0); // it stopped before acting on an unsaved state
  });
});
