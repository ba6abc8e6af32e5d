/**
 * Issue 32 (build 2) on Postgres: a durable run's input and config and its `running` status
 * record are written in ONE transaction (`PostgresStore.checkpoints`): both exist as soon as the
 * take returned — before the first model call, with no observability pipeline — and a failed
 * status write rolls the record back with it. A throwaway server; about 5 s.
 */
import { createAgent } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestPostgres;
const stores: PostgresStore[] = [];
let schemas = 0;
const open = async (schema = `durable_start_${++schemas}`) => {
  const store = await PostgresStore.open({ url: server.url, schema, max: 2 });
  stores.push(store);
  return store;
};
const input = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];

describe.skipIf(skipPostgres())(
  "PostgresStore.checkpoints: a durable start writes record and status together",
  () => {
    beforeAll(async () => {
      server = await startTestPostgres();
    }, 60_000);
    afterAll(async () => {
      for (const store of stores) await store.close();
      await server?.stop();
    });

    it("the status record reads running, owned, leased, as soon as the take returned (seen from another pool)", async () => {
      const store = await open();
      await store.checkpoints.take({
        runId: "r1",
        mode: "start",
        ownerId: "w1",
        leaseMs: 5_000,
        now: 1_000,
        start: { input, config: { runId: "r1", threadId: "t1" } },
      });
      const other = await open(store.schema);
      expect(await other.statusStore.get("r1")).toMatchObject({
        status: "running",
        ownerId: "w1",
        leaseUntil: 6_000,
        threadId: "t1",
        modelCalls: 0,
      });
      expect((await other.checkpoints.record("r1"))?.start?.input).toEqual(input);
    });

    it("a failed status write rolls the record back: neither exists", async () => {
      const store = await open();
      store.statusStore.saveIn = async () => {
        throw new Error("connection lost");
      };
      const error = await store.checkpoints
        .take({
          runId: "r2",
          mode: "start",
          ownerId: "w1",
          leaseMs: 5_000,
          now: 1_000,
          start: { input, config: {} },
        })
        .catch((e: unknown) => e);
      expect(TinyAgentsError.isInstance(error, "storage")).toBe(true);
      expect(await store.keyValue.get(store.checkpoints.namespace, "r2")).toBeUndefined();
      expect(await store.statusStore.get("r2")).toBeUndefined();
    });

    it("agent.run(input, { durable: { store } }): both exist before the first model call", async () => {
      const store = await open();
      const seen: unknown[] = [];
      const model = new ScriptedModel([
        async () => {
          seen.push(await store.statusStore.get("r3"));
          return "done";
        },
      ]);
      const run = await createAgent({ model }).run("hi", { runId: "r3", durable: { store, ownerId: "w3" } });
      expect(run.stopReason).toBe("completed");
      expect(seen[0]).toMatchObject({ runId: "r3", status: "running", ownerId: "w3" });
    });
  },
);
