/**
 * The one-statement group commit (issue 40): a batch of log appends and status saves is ONE
 * statement — one round trip, no BEGIN / COMMIT — and still refuses what the transaction path
 * refuses: a stream another writer appended to since (compare-and-set on its counter, then the
 * slow path with the journal's writer check), a write the server refuses (alone). Against a
 * throwaway server; time budget about 10 s.
 */
import { type AgentObservation, AppendLogEventJournal } from "@tinyagents/harness";
import { conformanceStatus } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { quietOnShutdown, spyStatements } from "./support/statement-spy.js";

let server: TestPostgres;
const cleanup: (() => Promise<unknown> | unknown)[] = [];
let schemas = 0;

/** A store on its own pool whose statements (texts) are recorded in `sent`. */
async function spiedStore(
  schema = `t_one_${++schemas}`,
  namedStatements?: boolean,
): Promise<{ store: PostgresStore; sent: string[]; names: (string | undefined)[] }> {
  const pool = new pg.Pool({ connectionString: server.url, max: 2 });
  quietOnShutdown(pool);
  const store = await PostgresStore.open({
    pool,
    schema,
    ...(namedStatements === undefined ? {} : { namedStatements }),
  });
  cleanup.push(async () => {
    await store.close();
    await pool.end();
  });
  const sent: string[] = [];
  const names: (string | undefined)[] = [];
  spyStatements(pool, (name, text) => {
    sent.push(text);
    names.push(name);
  });
  return { store, sent, names };
}

/** A journal observation of root run `root` at `offset`. */
function observation(root: string, offset: number): AgentObservation {
  return {
    offset,
    runId: root,
    rootRunId: root,
    at: offset,
    event: { type: "run.started", runId: root },
  } as unknown as AgentObservation;
}

describe.skipIf(skipPostgres())(
  "Postgres one-statement group commit (skipped only by TINYAGENTS_SKIP_POSTGRES=1)",
  () => {
    beforeAll(async () => {
      server = await startTestPostgres();
    }, 60_000);
    afterEach(async () => {
      for (const close of cleanup.splice(0).reverse()) await close();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it("a batch of appends and status saves is one statement, also when it continues its own streams", async () => {
      const { store, sent } = await spiedStore();
      const first = [
        store.appendLog.append("a", 1),
        store.appendLog.appendGroups([{ stream: "b", values: [1, 2], check: () => undefined }]),
        store.statusStore.save(conformanceStatus("r1")),
      ];
      expect(await Promise.all(first)).toEqual([0, [[0, 1]], undefined]);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^WITH want AS/);
      // The next batch continues the streams from the tails it committed: one statement again.
      const seen: unknown[] = [];
      const second = [
        store.appendLog.append("a", 2),
        store.appendLog.appendGroups([{ stream: "b", values: [3], check: (last) => seen.push(last) }]),
        store.statusStore.save(conformanceStatus("r1", { updatedAt: 2, modelCalls: 7 })),
      ];
      expect(await Promise.all(second)).toEqual([1, [[2]], undefined]);
      expect(seen).toEqual([2]); // the check saw the stream's stored tail
      expect(sent).toHaveLength(2);
      expect(sent.filter((text) => /^(BEGIN|COMMIT)/.test(text))).toEqual([]);
      expect((await store.appendLog.readFrom("b", 0, 10)).map((e) => e.value)).toEqual([1, 2, 3]);
      expect((await store.statusStore.get("r1"))?.modelCalls).toBe(7);
    });

    it("prepared by name per connection, unless namedStatements is false (a transaction-mode pooler)", async () => {
      const named = await spiedStore();
      await Promise.all([
        named.store.appendLog.append("a", 1),
        named.store.statusStore.save(conformanceStatus("r1")),
      ]);
      expect(named.names[0]).toMatch(/^tinyagents_commit(_new|_next)?_[0-9a-f]{20}$/);
      const unnamed = await spiedStore(undefined, false);
      await Promise.all([
        unnamed.store.appendLog.append("a", 1),
        unnamed.store.statusStore.save(conformanceStatus("r1")),
      ]);
      expect(unnamed.sent).toHaveLength(1);
      expect(unnamed.names).toEqual([undefined]);
    });

    it("a pooler that lost the named statement: the commit fails over to a transaction and lands", async () => {
      const { store, sent } = await spiedStore();
      expect(await store.appendLog.append("a", 1)).toBe(0);
      // As if the pooler handed this connection another server session: the statement is gone.
      await store.pool.query("DEALLOCATE ALL");
      // Another new stream: the same statement as the first commit's, which pg believes prepared.
      expect(await store.appendLog.append("b", 2)).toBe(0);
      expect(sent.filter((text) => text === "BEGIN").length).toBeGreaterThan(0);
      expect((await store.appendLog.readFrom("b", 0, 10)).map((e) => e.value)).toEqual([2]);
      expect(await store.appendLog.append("a", 3)).toBe(1);
      expect((await store.appendLog.readFrom("a", 0, 10)).map((e) => e.value)).toEqual([1, 3]);
    });

    it("another writer appended since: the statement is refused whole and the batch continues after it", async () => {
      const schema = `t_one_${++schemas}`;
      const { store: a, sent } = await spiedStore(schema);
      const { store: b } = await spiedStore(schema);
      expect(await a.appendLog.appendMany("s", ["a1", "a2"])).toEqual([0, 1]);
      expect(await b.appendLog.append("s", "b1")).toBe(2);
      const saved = a.statusStore.save(conformanceStatus("r2"));
      expect(await a.appendLog.append("s", "a3")).toBe(3);
      await saved;
      expect((await a.appendLog.readFrom("s", 0, 10)).map((e) => e.value)).toEqual(["a1", "a2", "b1", "a3"]);
      // The refused statement wrote nothing (its status row neither): then one transaction.
      expect(sent.slice(1).map((text) => text.split(" ")[0])).toContain("BEGIN");
      expect((await a.statusStore.get("r2"))?.runId).toBe("r2");
      expect(await a.appendLog.length("s")).toBe(4);
    });

    it("the journal still refuses a stale second writer of a run tree across stores", async () => {
      const schema = `t_one_${++schemas}`;
      const { store: a } = await spiedStore(schema);
      const { store: b } = await spiedStore(schema);
      const first = new AppendLogEventJournal(a.appendLog);
      const second = new AppendLogEventJournal(b.appendLog);
      await first.appendMany([observation("tree", 0), observation("tree", 1)]);
      // Another worker took the run over and continued its journal.
      await second.appendMany([observation("tree", 2), observation("tree", 3)]);
      // The first worker, unaware, writes offset 2 again: refused, nothing stored.
      await expect(first.append(observation("tree", 2))).rejects.toSatisfy((e) =>
        TinyAgentsError.isInstance(e, "conflict"),
      );
      expect((await first.read("tree")).map((o) => o.offset)).toEqual([0, 1, 2, 3]);
    });

    it("a write the server refuses rejects alone; the rest of its batch commits", async () => {
      const { store } = await spiedStore();
      expect(await store.appendLog.appendMany("s", ["a", "b"])).toEqual([0, 1]);
      // A writer that bypassed the counter: the store's next append to "s" collides on (stream, offset).
      await store.pool.query(`UPDATE "${store.schema}".log_streams SET next_offset = 0 WHERE stream = 's'`);
      const refused = store.appendLog.append("s", "c");
      const kept = store.appendLog.append("ok", "kept");
      const status = store.statusStore.save(conformanceStatus("r3"));
      await expect(refused).rejects.toSatisfy(
        (e) => TinyAgentsError.isInstance(e, "storage") && /23505/.test(e.message),
      );
      expect(await kept).toBe(0);
      await status;
      expect((await store.appendLog.readFrom("s", 0, 10)).map((e) => e.value)).toEqual(["a", "b"]);
      expect((await store.statusStore.get("r3"))?.runId).toBe("r3");
    });

    it("finished runs past maxFinishedRuns are evicted before the save resolves", async () => {
      const pool = new pg.Pool({ connectionString: server.url, max: 2 });
      quietOnShutdown(pool);
      const store = await PostgresStore.open({ pool, schema: `t_one_${++schemas}`, maxFinishedRuns: 3 });
      cleanup.push(async () => {
        await store.close();
        await pool.end();
      });
      for (let i = 1; i <= 6; i++) {
        await store.statusStore.save(
          conformanceStatus(`r${i}`, { status: "completed", updatedAt: i, endedAt: i }),
        );
        const finished = await store.statusStore.list({ active: false });
        expect(finished.map((s) => s.runId)).toEqual(
          Array.from({ length: Math.min(i, 3) }, (_, k) => `r${i - Math.min(i, 3) + 1 + k}`),
        );
      }
    });
  },
);
