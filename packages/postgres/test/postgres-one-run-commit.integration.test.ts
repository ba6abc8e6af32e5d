/**
 * The one-run commit statement (issue 40): a group commit of at most one stream and one status —
 * what one run's turn writes — is a statement with scalar parameters (the lines as one text the
 * server splits), and keeps every rule of the array statement: compare-and-set on the stream's
 * counter (a stream another store created or moved on is refused whole, then the transaction
 * path), the status store's upsert rule, the finished-run count for retention. Status records are
 * serialized when `save` is called (`snapshotsOnSave`). Against a throwaway server; time budget
 * about 10 s.
 */
import { type AgentObservation, AppendLogEventJournal, type HarnessRunStatus } from "@tinyagents/harness";
import { conformanceStatus } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PostgresOneStatementCommit } from "../src/postgres-one-statement-commit.js";
import { postgresTables } from "../src/postgres-schema.js";
import { type StatusRow, statusRow } from "../src/postgres-status-row.js";
import { StreamTails } from "../src/postgres-stream-tails.js";
import { quietOnShutdown, spyStatements } from "./support/statement-spy.js";

let server: TestPostgres;
const cleanup: (() => Promise<unknown> | unknown)[] = [];
let schemas = 0;

/** A store on its own pool whose statements (names and texts) are recorded in `sent`. */
async function spiedStore(
  schema = `t_run_${++schemas}`,
  maxFinishedRuns?: number,
): Promise<{ store: PostgresStore; sent: { name: string | undefined; text: string }[] }> {
  const pool = new pg.Pool({ connectionString: server.url, max: 2 });
  quietOnShutdown(pool);
  const store = await PostgresStore.open({
    pool,
    schema,
    ...(maxFinishedRuns === undefined ? {} : { maxFinishedRuns }),
  });
  cleanup.push(async () => {
    await store.close();
    await pool.end();
  });
  const sent: { name: string | undefined; text: string }[] = [];
  spyStatements(pool, (name, text) => sent.push({ name, text }));
  return { store, sent };
}

const NEW_STREAM = /^tinyagents_commit_new_[0-9a-f]{20}$/;
const NEXT_IN_STREAM = /^tinyagents_commit_next_[0-9a-f]{20}$/;
const ONE_RUN = /^tinyagents_commit_ne(w|xt)_[0-9a-f]{20}$/;

describe.skipIf(skipPostgres())(
  "Postgres one-run commit statement (skipped only by TINYAGENTS_SKIP_POSTGRES=1)",
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

    it("a run's turns (its journal and its status) are one scalar statement each: new stream, continued, append only, status only", async () => {
      const { store, sent } = await spiedStore();
      const first = await Promise.all([
        store.appendLog.appendMany("journal-r1", [{ n: 1 }, "two\nlines", [3]]),
        store.statusStore.save(conformanceStatus("r1", { updatedAt: 1 })),
      ]);
      expect(first).toEqual([[0, 1, 2], undefined]);
      const seen: unknown[] = [];
      const second = await Promise.all([
        store.appendLog.appendGroups([
          { stream: "journal-r1", values: [4, 5], check: (last) => seen.push(last) },
        ]),
        store.statusStore.save(
          conformanceStatus("r1", { status: "completed", updatedAt: 2, endedAt: 2, modelCalls: 3 }),
        ),
      ]);
      expect(second).toEqual([[[3, 4]], undefined]);
      expect(seen).toEqual([[3]]); // the check saw the tail this store committed
      expect(await store.appendLog.append("journal-r1", 6)).toBe(5);
      await store.statusStore.save(conformanceStatus("r2", { updatedAt: 3 }));
      // Four commits, each the one-run statement (the other statement sent: the finished-run
      // bound's first count, after the run finished).
      expect(sent.filter((s) => s.name !== undefined).map((s) => s.name)).toEqual(
        // A new stream creates its row; a stream this store wrote advances it; no stream: the first.
        [NEW_STREAM, NEXT_IN_STREAM, NEXT_IN_STREAM, NEW_STREAM].map((name) => expect.stringMatching(name)),
      );
      expect(sent.map((s) => s.text)).not.toContain("BEGIN");
      expect((await store.appendLog.readFrom("journal-r1", 0, 10)).map((e) => [e.offset, e.value])).toEqual([
        [0, { n: 1 }],
        [1, "two\nlines"],
        [2, [3]],
        [3, 4],
        [4, 5],
        [5, 6],
      ]);
      expect(await store.appendLog.length("journal-r1")).toBe(6);
      expect(await store.statusStore.get("r1")).toMatchObject({ status: "completed", modelCalls: 3 });
      expect((await store.statusStore.get("r2"))?.status).toBe("running");
      // The status rule holds: an older record does not replace a newer one.
      await store.statusStore.save(conformanceStatus("r1", { status: "running", updatedAt: 1 }));
      expect((await store.statusStore.get("r1"))?.status).toBe("completed");
    });

    it("a stream another store created first: the statement is refused whole, then the transaction path continues after it", async () => {
      const schema = `t_run_${++schemas}`;
      const { store: a, sent } = await spiedStore(schema);
      const { store: b } = await spiedStore(schema);
      expect(await b.appendLog.appendMany("s", ["b1", "b2"])).toEqual([0, 1]);
      const [offsets] = await Promise.all([
        a.appendLog.append("s", "a1"),
        a.statusStore.save(conformanceStatus("ra")),
      ]);
      expect(offsets).toBe(2);
      expect(sent[0]?.name).toMatch(NEW_STREAM);
      expect(sent.slice(1).map((s) => s.text.split(" ")[0])).toContain("BEGIN");
      expect((await a.appendLog.readFrom("s", 0, 10)).map((e) => e.value)).toEqual(["b1", "b2", "a1"]);
      expect((await a.statusStore.get("ra"))?.runId).toBe("ra");
      // Continued by the other store in turn: its remembered tail is stale, refused, then right.
      expect(await b.appendLog.append("s", "b3")).toBe(3);
      sent.length = 0;
      expect(await a.appendLog.append("s", "a2")).toBe(4);
      expect(sent[0]?.name).toMatch(NEXT_IN_STREAM);
      expect(sent.slice(1).map((s) => s.text.split(" ")[0])).toContain("BEGIN");
      expect(await b.appendLog.length("s")).toBe(5);
    });

    it("a run finished in a one-run commit counts once for the finished-run bound", async () => {
      const { store, sent } = await spiedStore(undefined, 1);
      const done = (runId: string, at: number) =>
        conformanceStatus(runId, { status: "completed", updatedAt: at, endedAt: at });
      await Promise.all([store.appendLog.append("journal-a", 1), store.statusStore.save(done("a", 1))]);
      // Saved finished again (already finished): not newly finished, nothing evicted.
      await store.statusStore.save(done("a", 2));
      expect((await store.statusStore.list({ active: false })).map((s) => s.runId)).toEqual(["a"]);
      await Promise.all([store.appendLog.append("journal-b", 1), store.statusStore.save(done("b", 3))]);
      expect((await store.statusStore.list({ active: false })).map((s) => s.runId)).toEqual(["b"]);
      expect(sent.filter((s) => ONE_RUN.test(s.name ?? ""))).toHaveLength(3);
    });

    it("a journal record too large to remember: the next commit of its stream is still one statement (the check reads the offset field)", async () => {
      const schema = `t_run_${++schemas}`;
      const { store, sent } = await spiedStore(schema);
      const journal = new AppendLogEventJournal(store.appendLog);
      const record = (offset: number, text: string) =>
        ({
          offset,
          runId: "big",
          rootRunId: "big",
          at: offset,
          event: { type: "run.started", runId: "big", input: text },
        }) as unknown as AgentObservation;
      await journal.appendMany([record(0, "a"), record(1, "x".repeat(40_000))]);
      await journal.append(record(2, "b"));
      expect(sent.map((s) => s.text.split(" ")[0])).not.toContain("BEGIN");
      expect(sent.map((s) => s.name)).toEqual([
        expect.stringMatching(NEW_STREAM),
        expect.stringMatching(NEXT_IN_STREAM),
      ]);
      // A second writer of the run tree is still refused, by the offsets alone.
      const { store: other } = await spiedStore(schema);
      await new AppendLogEventJournal(other.appendLog).append(record(3, "other"));
      await expect(journal.append(record(3, "stale"))).rejects.toSatisfy((e) =>
        TinyAgentsError.isInstance(e, "conflict"),
      );
      expect((await journal.read("big")).map((o) => o.offset)).toEqual([0, 1, 2, 3]);
    });

    it("a journal's commit keeps no line of its stream: a later value check on that stream reads the stored tail", async () => {
      const { store, sent } = await spiedStore();
      const record = (offset: number) =>
        ({
          offset,
          runId: "j",
          rootRunId: "j",
          at: offset,
          event: { type: "run.started", runId: "j", input: `in ${offset}` },
        }) as unknown as AgentObservation;
      await new AppendLogEventJournal(store.appendLog).appendMany([record(0), record(1)]);
      sent.length = 0;
      // A check of the last value itself (not its offset field): the store kept only the journal's
      // offsets, so the commit takes the transaction path, which reads the tail from the table.
      const seen: unknown[] = [];
      const offsets = await store.appendLog.appendGroups([
        { stream: "journal-j", values: ["after"], check: (last) => seen.push(last) },
      ]);
      expect(offsets).toEqual([[2]]);
      expect(seen).toEqual([record(1)]);
      expect(sent.map((s) => s.text.split(" ")[0])).toContain("BEGIN");
      expect(sent.some((s) => ONE_RUN.test(s.name ?? ""))).toBe(false);
      // appendMany (no check at all) keeps its line as before: the next value check is one statement.
      await store.appendLog.appendMany("k", ["k0"]);
      sent.length = 0;
      await store.appendLog.appendGroups([{ stream: "k", values: ["k1"], check: (last) => seen.push(last) }]);
      expect(seen.at(-1)).toBe("k0");
      expect(sent.map((s) => s.name)).toEqual([expect.stringMatching(NEXT_IN_STREAM)]);
    });

    it("a group with checkOffset gets the tail's offset field instead of check (no parse), also on the transaction path", async () => {
      const schema = `t_run_${++schemas}`;
      const { store } = await spiedStore(schema);
      const { store: other } = await spiedStore(schema);
      const seen: unknown[] = [];
      const group = (stream: string, values: unknown[]) => ({
        stream,
        values: values as never[],
        check: () => seen.push("check"),
        checkOffset: (offset: number | undefined) => seen.push(offset),
      });
      await store.appendLog.appendGroups([group("s", [{ offset: 5 }]), group("t", [{ offset: "7" }])]);
      await store.appendLog.appendGroups([group("s", [1]), group("t", [2])]);
      expect(seen).toEqual([undefined, undefined, 5, undefined]); // "7" is not a numeric offset
      // Another store moved "s" on: this store's tail is stale, the transaction path reads the stored one.
      await other.appendLog.appendMany("s", [{ offset: 9 }]);
      seen.length = 0;
      expect(await store.appendLog.appendGroups([group("s", [3])])).toEqual([[3]]);
      // First against the remembered tail (whose value has no offset), then against the stored one.
      expect(seen).toEqual([undefined, 9]);
    });

    it("a record changed after save was called is stored as it was when called (snapshotsOnSave)", async () => {
      const { store } = await spiedStore();
      expect(store.statusStore.snapshotsOnSave).toBe(true);
      const record: HarnessRunStatus = conformanceStatus("r", { updatedAt: 1 });
      const saving = store.statusStore.saveMany([record]);
      // Changed in the same turn, before the group commit writes it.
      record.status = "failed";
      record.updatedAt = 2;
      await saving;
      expect(await store.statusStore.get("r")).toMatchObject({ status: "running", updatedAt: 1 });
    });

    it("a line or record that is not JSON text (empty, or holding a line feed) takes the transaction path", async () => {
      const { store } = await spiedStore();
      const tables = postgresTables(store.schema);
      const commit = new PostgresOneStatementCommit(
        store.pool,
        tables,
        new StreamTails(),
        async () => undefined,
      );
      const texts: string[] = [];
      const query = store.pool.query.bind(store.pool) as (...a: unknown[]) => unknown;
      Object.assign(store.pool, {
        query: (...a: unknown[]) => {
          texts.push((a[0] as { text: string }).text);
          return query(...a);
        },
      });
      const status = statusRow(conformanceStatus("r"));
      const append = (stream: string, lines: string[]) => ({
        kind: "append" as const,
        groups: [{ stream, lines, check: undefined }],
      });
      // Split on line feeds, these would become other rows (or none): not sent as one statement.
      expect(await commit.commit([append("raw", ["first\nsecond", "third"])])).toBeUndefined();
      expect(await commit.commit([append("raw", [""]), { kind: "status", rows: [status] }])).toBeUndefined();
      expect(
        await commit.commit([append("a", ["1"]), append("b", ["2\n3"]), { kind: "status", rows: [status] }]),
      ).toBeUndefined();
      const odd = [...status.slice(0, 9), "{\n}"] as unknown as StatusRow;
      expect(await commit.commit([{ kind: "status", rows: [odd] }])).toBeUndefined();
      expect(texts).toEqual([]);
      // JSON text (any number of lines, both forms) goes in one statement. (New streams only:
      // this commit's tails are not remembered, the append log does that.)
      expect(await commit.commit([append("a", ["1", '"x"'])])).toEqual([[[0, 1]]]);
      expect(
        await commit.commit([append("b", ["2"]), append("c", ["3"]), { kind: "status", rows: [status] }]),
      ).toEqual([[[0]], [[0]], undefined]);
      expect(texts).toHaveLength(2);
      const { rows } = (await query(
        `SELECT stream, "offset", value FROM ${tables.log} ORDER BY stream, "offset"`,
      )) as {
        rows: { stream: string; offset: string; value: string }[];
      };
      expect(rows.map((r) => [r.stream, Number(r.offset), r.value])).toEqual([
        ["a", 0, "1"],
        ["a", 1, '"x"'],
        ["b", 0, "2"],
        ["c", 0, "3"],
      ]);
    });
  },
);
