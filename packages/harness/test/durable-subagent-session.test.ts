/**
 * Issue 32 (durable sub-agents everywhere): children driven through `SubAgentSession` or
 * `SubAgent.run(input, { parent })` inside a durable parent derive their run id from the parent's run id
 * and the tool call id (`<parent>.<name>.<callId>`, `.t<n>` for a session's turn n >= 2), so it
 * is the same in every process; they checkpoint like root runs, and a recovered parent continues
 * them from their own checkpoints (a finished turn answers with no model call). Without a call id
 * a durable parent refuses to run the child (`validation`) instead of running a child whose id
 * would differ in the recovering process. In-memory store; the dead process hangs on a clock
 * that never moves (see durable-runs.test.ts).
 */
import {
  AgentHarness,
  CheckpointStore,
  InMemoryKeyValueStore,
  SubAgent,
  SubAgentSession,
  tool,
} from "@tinyagents/harness";
import { DeterministicClock, ScriptedModel, type ScriptStep } from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { agent, type Ledger, never, until } from "./durable-helpers.js";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const PARENT: ScriptStep[] = [{ toolCalls: [{ id: "c1", name: "consult", arguments: {} }] }, "parent done"];
/** The child's two turns: turn 1 uses its tool, turn 2 answers from the transcript. */
const CHILD: ScriptStep[] = [
  { toolCalls: [{ id: "k1", name: "work", arguments: { n: 9 } }] },
  "first answer",
  "second answer",
];

/** A parent whose `consult` tool talks to a `helper` sub-agent for two turns of one session. */
function parentWith(child: AgentHarness<undefined, undefined>, script: ScriptStep[], withCallId = true) {
  const helper = new SubAgent({ name: "helper", description: "helps", harness: child });
  const h = new AgentHarness<undefined, undefined>();
  h.registerModel("m", new ScriptedModel(script));
  h.registerTool(
    tool({
      name: "consult",
      description: "asks the helper twice",
      inputSchema: { type: "object", properties: {} },
      execute: async (_args, ctx) => {
        const session = new SubAgentSession(helper);
        const options = withCallId ? { parent: ctx.run, callId: ctx.callId } : { parent: ctx.run };
        const one = await session.send("first question", options);
        const two = await session.send("second question", options);
        return `${text(one.finalResponse?.message)} / ${text(two.finalResponse?.message)}`;
      },
    }),
  );
  return h;
}

function deadOptions(store: CheckpointStore) {
  const stop = new AbortController();
  cleanup.push(() => stop.abort());
  return {
    runId: "r",
    signal: stop.signal,
    clock: new DeterministicClock({ start: 0 }),
    durable: { store, ownerId: "dead", leaseMs: 1_000 },
  };
}

describe("durable SubAgentSession / SubAgent.run children", () => {
  it("a crash in turn 2's model call: the recovered parent answers turn 1 from its record and continues turn 2", async () => {
    const store = new CheckpointStore(new InMemoryKeyValueStore());
    const ledger: Ledger = [];
    // The first process dies inside the child's turn-2 model call (its 3rd).
    const dying = agent(ledger, [CHILD[0] as ScriptStep, CHILD[1] as ScriptStep, () => never]);
    void parentWith(dying.h, PARENT)
      .run("go", deadOptions(store))
      .catch(() => undefined);
    await until(async () => (await store.record("r.helper.c1.t2")) !== undefined, "turn 2 started");
    expect(await store.record("r.helper.c1")).toMatchObject({ parentRunId: "r", state: "completed" });
    expect(await store.record("r.helper.c1.t2")).toMatchObject({ parentRunId: "r", state: "running" });

    const child = agent(ledger, [CHILD[2] as ScriptStep]);
    const recovered = await parentWith(child.h, PARENT.slice(1)).recover("r", {
      clock: new DeterministicClock({ start: 1_000_000 }),
      durable: { store, ownerId: "recoverer" },
    });
    expect(recovered.text).toBe("parent done");
    // Turn 1 was not redone (no model call, its tool ran once); turn 2 made its one model call.
    expect(child.model.requests).toHaveLength(1);
    expect(ledger.map((e) => e.key)).toEqual(["r.helper.c1:k1"]);
    // Turn 2 saw turn 1's transcript, as in an uninterrupted run.
    expect(JSON.stringify(child.model.requests[0]?.messages)).toContain("first answer");
    const tool = recovered.messages.find((m) => m.role === "tool");
    expect(text(tool)).toBe("first answer / second answer");
    for (const id of ["r", "r.helper.c1", "r.helper.c1.t2"]) {
      expect((await store.record(id))?.state, id).toBe("completed");
    }
    expect(await store.liveRecords(0)).toEqual([]);
    const baseline = await parentWith(agent([], CHILD).h, PARENT).run("go", { runId: "r" });
    expect(recovered.messages).toEqual(baseline.messages);
  });

  it("a durable parent refuses a child without a call id (its id would differ in another process)", async () => {
    const store = new CheckpointStore(new InMemoryKeyValueStore());
    const run = await parentWith(agent([], CHILD).h, PARENT, false).run("go", {
      runId: "q",
      durable: { store, ownerId: "w" },
    });
    const tool = run.messages.find((m) => m.role === "tool");
    expect(text(tool)).toMatch(/sub-agent "helper" runs inside durable run "q" without a call id/);
    expect((await store.records()).map((r) => r.runId)).toEqual(["q"]);
  });

  it("a parent that is not durable runs session children as before (generated ids)", async () => {
    const run = await parentWith(agent([], CHILD).h, PARENT, false).run("go", { runId: "p" });
    expect(text(run.messages.find((m) => m.role === "tool"))).toBe("first answer / second answer");
  });
});
