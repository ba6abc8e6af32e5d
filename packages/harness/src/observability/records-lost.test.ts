import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { EventSink } from "../events/event-sink.js";
import { createAgent } from "../runtime/create-agent.js";
import { FakeTool } from "../testkit/fake-tool.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { attachObservability } from "./attach-observability.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";

// Issue 37 item 5: a library run (no `durable.flush`) whose journal or status cannot be written
// says so in its result (`recordsLost`) instead of reading `completed` as if its record were safe.

const full = () => new TinyAgentsError("storage", "SQLite: could not append in /data/t.db (SQLITE_FULL)");

function failingJournal(): InMemoryEventJournal {
  const journal = new InMemoryEventJournal();
  Object.assign(journal, {
    append: async () => Promise.reject(full()),
    appendMany: async () => Promise.reject(full()),
  });
  return journal;
}

function failingStatusStore(): InMemoryHarnessStatusStore {
  const store = new InMemoryHarnessStatusStore();
  Object.assign(store, { save: async () => Promise.reject(full()), saveMany: undefined });
  return store;
}

const toolCall = { toolCalls: [{ id: "c1", name: "look", arguments: {} }] };
const newAgent = () =>
  createAgent({ model: new ScriptedModel([toolCall, "done"]), tools: [FakeTool.returning("look", "seen")] });

describe("a run whose records cannot be stored says so in its result", () => {
  it("agent.run with a journal that fails every write: completed, with recordsLost naming the error", async () => {
    const errors: unknown[] = [];
    const events = new EventSink("run-a");
    const observed = attachObservability(events, {
      journal: failingJournal(),
      onError: (e) => errors.push(e),
    });
    const result = await newAgent().run("go", { runId: "run-a", events });
    await observed.close();
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("done"); // the answer is not lost with the record
    expect(result.recordsLost?.journal).toBeGreaterThan(0);
    expect(result.recordsLost?.status).toBe(0);
    expect(result.recordsLost?.error).toMatchObject({
      code: "storage",
      message: expect.stringContaining("SQLITE_FULL"),
    });
    expect(JSON.parse(JSON.stringify(result.recordsLost))).toEqual(result.recordsLost); // plain JSON
    expect(errors.length).toBeGreaterThan(0); // onError still hears of every failure
  });

  it("agent.stream with a status store that fails every save: the completed item and result carry it", async () => {
    const events = new EventSink("run-s");
    const journal = new InMemoryEventJournal();
    const observed = attachObservability(events, { journal, statusStore: failingStatusStore() });
    const stream = newAgent().stream("go", { runId: "run-s", events });
    let completed: unknown;
    for await (const item of stream) if (item.type === "completed") completed = item.result;
    const result = await stream.result;
    await observed.close();
    expect(result.recordsLost).toMatchObject({ journal: 0, error: { code: "storage" } });
    expect(result.recordsLost?.status).toBeGreaterThan(0);
    expect(completed).toBe(result);
  });

  it("a healthy pipeline: no recordsLost, and the run resolves only once its records are stored", async () => {
    const events = new EventSink("run-ok");
    const journal = new InMemoryEventJournal();
    const statusStore = new InMemoryHarnessStatusStore();
    const observed = attachObservability(events, { journal, statusStore });
    const result = await newAgent().run("go", { runId: "run-ok", events });
    // Read before any flush or close: the run waited for its journal and its final status.
    const types = (await journal.read("run-ok")).map((o) => o.event.type);
    expect(types.at(-1)).toBe("run.completed");
    expect((await statusStore.get("run-ok"))?.status).toBe("completed");
    expect(result.recordsLost).toBeUndefined();
    expect("recordsLost" in result).toBe(false);
    await observed.close();
  });

  it("only losses during the run count: a failure before it started is not this run's", async () => {
    const journal = new InMemoryEventJournal();
    const state = { failing: true };
    const appendMany = journal.appendMany.bind(journal);
    Object.assign(journal, {
      appendMany: async (...args: Parameters<typeof appendMany>) =>
        state.failing ? Promise.reject(full()) : appendMany(...args),
    });
    const events = new EventSink("run-b");
    const observed = attachObservability(events, { journal });
    const first = await newAgent().run("go", { runId: "run-b", events });
    expect(first.recordsLost?.journal).toBeGreaterThan(0);
    state.failing = false;
    const second = await newAgent().run("again", { runId: "run-b2", events });
    expect(second.recordsLost).toBeUndefined();
    await observed.close();
  });

  it("a sink without a journal or status store attached: the run pays nothing and reports nothing", async () => {
    const result = await newAgent().run("go", { events: new EventSink("plain") });
    expect(result.recordsLost).toBeUndefined();
  });
});
