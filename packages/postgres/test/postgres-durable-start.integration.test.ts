/**
 * Issue 32 (build 2) on Postgres: a durable run's input and config and its `running` status
 * record are written in ONE statement (`PostgresStore.checkpoints`; one round trip): both exist
 * as soon as the take returned — before the first model call, with no observability pipeline —
 * and a status write the server refuses takes the record with it. A throwaway server; about 5 s.
 */
import { createAgent } from "@tinyagents/harness";
import { conformanceStatus, ScriptedModel } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStartSql, startRun } from "../src/postgres-run-start.js";
import { postgresTables } from "../src/postgres-schema.js";

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
      // The server refuses this run's status row (as it would a full disk or a lost lock).
      await store.pool.query(
        `ALTER TABLE "${store.schema}".run_status ADD CONSTRAINT refuse_r2 CHECK (run_id <> 'r2')`,
      );
      const sent: string[] = [];
      const query = store.pool.query.bind(store.pool) as (...a: unknown[]) => unknown;
      store.pool.query = ((...a: unknown[]) => {
        const config = a[0] as string | { text: string };
        sent.push(typeof config === "string" ? config : config.text);
        return query(...a);
      }) as typeof store.pool.query;
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
      expect((error as Error).message).toMatch(/refuse_r2/);
      // Record and status were one statement (one round trip, no BEGIN / COMMIT).
      expect(sent.filter((text) => /INSERT INTO .*"run_status"/.test(text))).toHaveLength(1);
      expect(sent.filter((text) => /^(BEGIN|COMMIT)/.test(text))).toEqual([]);
      expect(await store.keyValue.get(store.checkpoints.namespace, "r2")).toBeUndefined();
      expect(await store.statusStore.get("r2")).toBeUndefined();
    });

    it("the start statement creates a run's record once: a second start of it reports not created and changes nothing", async () => {
      const store = await open();
      const sql = runStartSql(postgresTables(store.schema));
      const status = (ownerId: string) =>
        conformanceStatus("r4", { ownerId, leaseUntil: 9_000, updatedAt: 1_000 });
      const start = (ownerId: string) =>
        startRun(store.pool, sql, store.keyValue.createParams("runs", "r4", { ownerId }), status(ownerId));
      expect(await start("w1")).toBe(true);
      // A second starter that read no record before the first one wrote it (a race): refused.
      expect(await start("w2")).toBe(false);
      expect(await store.keyValue.get("runs", "r4")).toEqual({ ownerId: "w1" });
      expect((await store.statusStore.get("r4"))?.ownerId).toBe("w1");
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
