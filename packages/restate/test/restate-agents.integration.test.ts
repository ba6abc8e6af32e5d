// restateAgents + RestateAgentClient end to end on a real restate-server (from node_modules, on
// loopback): the harness's run loop inside a workflow per run, its outcome through the client,
// live events through the shared journal, a thread's runs one at a time in submission order, and
// journal back-pressure (a slow journal with a small queue loses nothing).
import type { InMemoryEventJournal } from "@tinyagents/harness";
import { CONFORMANCE_INPUT, expectedConformanceRun, streamProblems } from "@tinyagents/harness/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentEndpoint, listenAgents, RestateAgentClient, restateAgents } from "../src/index.js";
import { type RestateServer, startRestateServer } from "../src/testing/index.js";
import { journal, orderLog, testAgents } from "./support/agents.js";
import { quiet, RESTATE_SKIP } from "./support/restate-env.js";

let server: RestateServer | undefined;
let worker: AgentEndpoint | undefined;
let client: RestateAgentClient;
/** Runs `slow-*` journal here: the same store as `journal`, each write taking 40 ms. */
const slowJournal = Object.assign(Object.create(journal) as InMemoryEventJournal, {
  appendMany: async (records: Parameters<InMemoryEventJournal["appendMany"]>[0]) => {
    await new Promise((resolve) => setTimeout(resolve, 40)); // storage slower than the runs
    await journal.appendMany(records);
  },
});

describe.skipIf(RESTATE_SKIP !== undefined)(
  `restateAgents on restate-server${RESTATE_SKIP ? ` (${RESTATE_SKIP})` : ""}`,
  () => {
    beforeAll(async () => {
      server = await startRestateServer({ retryInitialIntervalMs: 20 });
      worker = await listenAgents(
        restateAgents({
          agents: testAgents,
          events: ({ runId }) =>
            runId.startsWith("slow-") ? { journal: slowJournal, maxQueue: 4 } : { journal },
        }),
        {
          logger: quiet,
        },
      );
      await server.registerDeployment(worker.url);
      client = new RestateAgentClient({ ingressUrl: server.ingressUrl, journal });
    }, 60_000);

    afterAll(async () => {
      await worker?.close();
      await server?.stop();
    });

    it("runs an agent end to end: the client gets the transcript, usage, cost and resolved model", async () => {
      const started = await client.start("conformance", "run-e2e", CONFORMANCE_INPUT);
      expect(started.status).toBe("Accepted");
      const outcome = await client.result("conformance", "run-e2e");
      const expected = await expectedConformanceRun("run-e2e");
      expect(outcome.state).toBe("completed");
      expect(outcome.result.messages).toEqual(expected.messages);
      expect(outcome.result.usage).toEqual(expected.usage);
      expect(outcome.result.cost).toEqual(expected.cost);
      expect(outcome.result.cost.total).toBeGreaterThan(0);
      expect(outcome.result.resolvedModel).toMatchObject({
        name: "conformance",
        provider: "conformance",
        providerModelId: "conformance-1",
      });
      expect(outcome.result.text).toMatch(/^Done\. fetch_order: order 42/);
      expect(await client.status("conformance", "run-e2e")).toMatchObject({
        phase: "completed",
        stopReason: "completed",
      });
      const entries = await server?.query<{ entry_type: string; name: string }>(
        `SELECT entry_type, name FROM sys_journal WHERE id = '${started.invocationId}' ORDER BY index`,
      );
      // One journaled step per model call and per tool call, nothing else: the "once" tool's
      // intent is the model step that proposed it (nothing journaled in between), and the run's
      // start time came with the client's start (no unnamed clock step).
      const steps = (entries ?? []).filter((e) => e.entry_type === "Command: Run").map((e) => e.name);
      expect(steps).toEqual([
        "model:run-e2e-model-1",
        "tool:call_fetch",
        "model:run-e2e-model-2",
        "result:call_email",
        "model:run-e2e-model-3",
        "tool:call_deploy",
        "model:run-e2e-model-4",
      ]);
      // No steering policy: no model step asks the server for steering commands (a round trip each).
      expect((entries ?? []).filter((e) => e.entry_type.includes("Promise"))).toEqual([]);
    });

    it("starts a run id once: a second start is PreviouslyAccepted and returns the same outcome", async () => {
      await client.run("conformance", "run-once", CONFORMANCE_INPUT);
      const again = await client.start("conformance", "run-once", CONFORMANCE_INPUT);
      expect(again.status).toBe("PreviouslyAccepted");
      // The same run id with another request names another run: refused, nothing started.
      await expect(client.start("conformance", "run-once", "a different prompt")).rejects.toMatchObject({
        code: "conflict",
      });
      const outcome = await client.result("conformance", "run-once");
      expect(outcome.result.messages[0]).toMatchObject({ role: "user" });
      expect(JSON.stringify(outcome.result.messages)).not.toContain("a different prompt");
    });

    it("streams the run's live events from the shared journal, in order, once each", async () => {
      await client.start("conformance", "run-events", CONFORMANCE_INPUT);
      const types: string[] = [];
      const offsets: number[] = [];
      for await (const record of client.events("conformance", "run-events")) {
        types.push(record.event.type);
        offsets.push(record.offset);
      }
      expect(types[0]).toBe("run.started");
      expect(types.at(-1)).toBe("run.completed");
      expect(types.filter((t) => t === "tool.started")).toHaveLength(3);
      expect(types).toContain("model.text_delta");
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      expect(new Set(offsets).size).toBe(offsets.length);
    });

    it("a slow journal with a small queue loses nothing: runs wait for it (no journal.dropped)", async () => {
      const ids = ["slow-1", "slow-2", "slow-3", "slow-4"];
      await Promise.all(ids.map((runId) => client.start("conformance", runId, CONFORMANCE_INPUT)));
      const outcomes = await Promise.all(ids.map((runId) => client.result("conformance", runId)));
      expect(outcomes.map((o) => o.state)).toEqual(ids.map(() => "completed"));
      for (const runId of ids) {
        const events = await journal.read(runId);
        expect(streamProblems(events)).toEqual([]); // journal.dropped would be one
        expect(events.filter((o) => o.event.type === "tool.completed")).toHaveLength(3);
        expect(events.at(-1)?.event.type).toBe("run.completed");
      }
    });

    it("runs a thread's submissions one at a time, in the order they were submitted", async () => {
      orderLog.length = 0;
      // Queued one after the other (each accepted before the next: the order is the arrival order),
      // while earlier ones are still running; then all awaited together.
      const queued = [];
      for (const n of [1, 2, 3])
        queued.push(await client.enqueue("thread-a", "ordered", `ordered-${n}`, `msg-${n}`));
      const outcomes = await Promise.all(queued.map((q) => q.result()));
      expect(outcomes.map((o) => o.result.text)).toEqual(["done msg-1", "done msg-2", "done msg-3"]);
      expect(outcomes.map((o) => o.threadId)).toEqual(["thread-a", "thread-a", "thread-a"]);
      expect(orderLog).toEqual([
        "start:msg-1",
        "end:msg-1",
        "start:msg-2",
        "end:msg-2",
        "start:msg-3",
        "end:msg-3",
      ]);
    });
  },
);
