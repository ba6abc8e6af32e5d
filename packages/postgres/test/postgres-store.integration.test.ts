/**
 * PostgresStore against a throwaway server (startTestPostgres): migrations, schemas, and what
 * only a shared database has to prove — several PROCESSES appending to one stream never
 * duplicate or interleave offsets, and N processes claiming one checkpoint: exactly one wins.
 * (The behaviours every backend shares run in postgres-conformance.integration.test.ts.)
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { conformancePausedRun, conformanceStatus } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { build } from "esbuild";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const workerSource = fileURLToPath(new URL("./fixtures/pg-worker.ts", import.meta.url));
// The worker, bundled once into plain JavaScript (a child then starts in a fraction of a second
// instead of transpiling the harness); under node_modules so its `pg` import resolves.
const cacheDir = fileURLToPath(
  new URL("../../../node_modules/.cache/tinyagents-postgres-test/", import.meta.url),
);
let worker: string;

let server: TestPostgres;
const cleanup: (() => Promise<unknown> | unknown)[] = [];
let schemas = 0;
const freshSchema = () => `t_store_${++schemas}`;

async function open(schema = freshSchema()): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url: server.url, schema });
  cleanup.push(() => store.close());
  return store;
}

interface Worker {
  child: ChildProcessWithoutNullStreams;
  ask(line: string): Promise<string>;
}

async function startWorker(schema: string): Promise<Worker> {
  const child = spawn(process.execPath, [worker, server.url, schema], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.stdin.end();
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done === true) throw new Error(`pg-worker exited: ${stderr}`);
    return line.value;
  };
  expect(await next()).toBe("ready");
  return {
    child,
    ask: (line) => {
      child.stdin.write(`${line}\n`);
      return next();
    },
  };
}

describe.skipIf(skipPostgres())("PostgresStore (skipped only by TINYAGENTS_SKIP_POSTGRES=1)", () => {
  beforeAll(async () => {
    mkdirSync(cacheDir, { recursive: true });
    worker = join(cacheDir, `pg-worker-${process.pid}.mjs`);
    await build({
      entryPoints: [workerSource],
      outfile: worker,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      external: ["pg"],
      logLevel: "silent",
    });
    server = await startTestPostgres({ settings: { track_commit_timestamp: "on" } });
  }, 60_000);
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(worker, { force: true });
  });

  it("creates its schema once: concurrent opens and reopens migrate idempotently", async () => {
    const schema = freshSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(schema)));
    await stores[0]?.keyValue.put("ns", "k", { v: 1 });
    const again = await open(schema);
    expect(await again.keyValue.get("ns", "k")).toEqual({ v: 1 });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
      );
      expect(rows).toEqual([{ version: 1 }, { version: 2 }]);
    } finally {
      await client.end();
    }
  });

  it("keeps deployments apart by schema, and refuses a bad schema name or a newer schema version", async () => {
    const a = await open();
    const b = await open();
    await a.keyValue.put("ns", "k", "a");
    await a.appendLog.append("s", 1);
    expect(await b.keyValue.get("ns", "k")).toBeUndefined();
    expect(await b.appendLog.length("s")).toBe(0);
    await expect(PostgresStore.open({ url: server.url, schema: 'x"; drop' })).rejects.toSatisfy((e) =>
      TinyAgentsError.isInstance(e, "validation"),
    );
    await a.pool.query(`INSERT INTO "${a.schema}".schema_migrations (version) VALUES (99)`);
    await expect(PostgresStore.open({ url: server.url, schema: a.schema })).rejects.toSatisfy(
      (e) => TinyAgentsError.isInstance(e, "storage") && /version 99/.test(e.message),
    );
  });

  it("migrate: false opens without touching the schema (for a user without CREATE)", async () => {
    const migrated = await open();
    await migrated.keyValue.put("ns", "k", 1);
    const plain = await PostgresStore.open({ url: server.url, schema: migrated.schema, migrate: false });
    cleanup.push(() => plain.close());
    expect(await plain.keyValue.get("ns", "k")).toBe(1);
    const bare = await PostgresStore.open({ url: server.url, schema: freshSchema(), migrate: false });
    cleanup.push(() => bare.close());
    await expect(bare.keyValue.get("ns", "k")).rejects.toSatisfy(
      (e) => TinyAgentsError.isInstance(e, "storage") && /42P01/.test(e.message),
    );
  });

  it("reports an unreachable server as a storage error that says what to check", async () => {
    const error = await PostgresStore.open({ url: "postgres://postgres@127.0.0.1:1/postgres" }).catch(
      (e) => e,
    );
    expect(TinyAgentsError.isInstance(error, "storage")).toBe(true);
    expect((error as Error).message).toMatch(/ECONNREFUSED|start Postgres or fix the URL/);
  });

  it("driver errors are storage errors naming the operation, the table and the database, never the password", async () => {
    const migrated = await open();
    const port = new URL(server.url).port;
    // Trust auth ignores the password; it must still never reach a message or a detail.
    const secretUrl = `postgres://postgres:pw-Never-Shown-7@127.0.0.1:${port}/postgres`;
    // A read-only server (a standby, default_transaction_read_only): every write is SQLSTATE 25006.
    const readOnly = await PostgresStore.open({
      url: `${secretUrl}?options=${encodeURIComponent("-c default_transaction_read_only=on")}`,
      schema: migrated.schema,
      migrate: false,
    });
    cleanup.push(() => readOnly.close());
    const database = `postgres@127.0.0.1:${port}`;
    const failures = await Promise.all([
      readOnly.appendLog.append("run-1", { n: 1 }).catch((e: unknown) => e),
      readOnly.statusStore.save(conformanceStatus("run-1")).catch((e: unknown) => e),
      readOnly.keyValue.put("ns", "k", 1).catch((e: unknown) => e),
    ]);
    const tables = ["log", "run_status", "kv"].map((t) => `"${migrated.schema}"."${t}"`);
    failures.forEach((error, i) => {
      expect(TinyAgentsError.isInstance(error, "storage")).toBe(true);
      const { message, details } = error as TinyAgentsError;
      expect(details).toMatchObject({ table: tables[i], database, pgCode: "25006", retryable: false });
      expect(message).toContain(`on table ${tables[i]} in database ${database} (25006)`);
      expect(message).toContain("point the URL at the primary");
      expect(JSON.stringify({ message, details })).not.toContain("pw-Never-Shown-7");
    });
    expect(failures[0]).toMatchObject({ details: { action: 'append to stream "run-1"' } });
    // A table dropped under a live store: the error names the table it was writing.
    await migrated.pool.query(`DROP TABLE "${migrated.schema}".kv`);
    await expect(migrated.keyValue.get("ns", "k")).rejects.toMatchObject({
      code: "storage",
      details: { action: "read a key", table: `"${migrated.schema}"."kv"`, pgCode: "42P01" },
    });
    // An unreachable server: the database it was meant to be, and the connection class.
    const unreachable = await PostgresStore.open({
      url: "postgres://postgres:pw-Never-Shown-7@127.0.0.1:1/billing",
      migrate: false,
    }).catch((e: unknown) => e);
    expect(unreachable).toMatchObject({
      code: "storage",
      details: { action: "connect", database: "billing@127.0.0.1:1", pgCode: "ECONNREFUSED" },
    });
    expect(String(unreachable)).not.toContain("pw-Never-Shown-7");
  });

  it("group commit: the appends and status saves of one event-loop turn share ONE transaction", async () => {
    const store = await open();
    const writes = [
      store.appendLog.append("a", 1),
      store.appendLog.appendMany("b", [1, 2]),
      store.appendLog.appendGroups([
        { stream: "c", values: [1] },
        { stream: "a", values: [2] },
      ]),
      store.statusStore.save(conformanceStatus("r1")),
    ];
    expect(await Promise.all(writes)).toEqual([0, [0, 1], [[0], [1]], undefined]);
    // The commit time of the transaction that wrote each row (its xmin).
    const committed = (table: string) =>
      store.pool.query(
        `SELECT DISTINCT pg_xact_commit_timestamp(xmin)::text AS x FROM "${store.schema}".${table}`,
      );
    const log = await committed("log");
    const status = await committed("run_status");
    expect(log.rows).toHaveLength(1);
    expect(status.rows).toEqual(log.rows);
    // The next turn is the next transaction.
    await store.appendLog.append("a", 3);
    expect((await committed("log")).rows).toHaveLength(2);
  });

  it("group commit: a batch the one statement cannot take costs no savepoints (BEGIN, the writes' own statements, COMMIT)", async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    const store = await PostgresStore.open({ pool, schema: freshSchema() });
    cleanup.push(async () => {
      await store.close();
      await pool.end();
    });
    const sent: string[] = [];
    pool.on("acquire", (client) => {
      const query = client.query as (...a: unknown[]) => unknown;
      if ((client as { counted?: true }).counted) return;
      (client as { counted?: true }).counted = true;
      client.query = ((...a: unknown[]) => {
        const config = a[0] as string | { text: string };
        sent.push(typeof config === "string" ? config : config.text);
        return query.apply(client, a);
      }) as typeof client.query;
    });
    const writes = [
      store.appendLog.append("a", 1),
      store.appendLog.appendGroups([{ stream: "b", values: [1, 2] }]),
      store.statusStore.save(conformanceStatus("r1")),
      // Not data the one-statement commit can take: the batch is one transaction.
      store.statusStore.reapStale({ olderThanMs: 1000, now: 0 }),
    ];
    expect(await Promise.all(writes)).toEqual([0, [[0, 1]], undefined, []]);
    expect(sent[0]).toBe("BEGIN");
    expect(sent.at(-1)).toBe("COMMIT");
    expect(sent.filter((text) => /SAVEPOINT/.test(text))).toEqual([]);
    expect(sent.filter((text) => text === "BEGIN")).toHaveLength(1);
  });

  it("group commit: a refused write rejects alone; flush() and close() commit what is waiting", async () => {
    const store = await open();
    const refused = store.appendLog.appendGroups([
      {
        stream: "a",
        values: ["never"],
        check: () => {
          throw new TinyAgentsError("conflict", "second writer");
        },
      },
    ]);
    const kept = store.appendLog.append("a", "kept");
    await expect(refused).rejects.toSatisfy((e) => TinyAgentsError.isInstance(e, "conflict"));
    expect(await kept).toBe(0);
    const pending = store.appendLog.append("f", "flushed");
    await store.flush();
    const other = await open(store.schema);
    expect(await other.appendLog.readFrom("f", 0, 10)).toEqual([{ offset: 0, value: "flushed" }]);
    void store.appendLog.append("f", "at close");
    await store.close();
    expect(await pending).toBe(0);
    expect((await other.appendLog.readFrom("f", 0, 10)).map((e) => e.value)).toEqual(["flushed", "at close"]);
    expect(store.isOpen).toBe(false);
  });

  it("the log's unique (stream, offset) key refuses a duplicate offset even if the counter is wrong", async () => {
    const store = await open();
    expect(await store.appendLog.appendMany("s", ["a", "b"])).toEqual([0, 1]);
    // Simulate a writer that bypassed the counter: the next append would reuse offset 0.
    await store.pool.query(`UPDATE "${store.schema}".log_streams SET next_offset = 0`);
    await expect(store.appendLog.append("s", "c")).rejects.toSatisfy(
      (e) => TinyAgentsError.isInstance(e, "storage") && /23505/.test(e.message),
    );
    expect((await store.appendLog.readFrom("s", 0, 10)).map((e) => e.value)).toEqual(["a", "b"]);
  });

  it("4 processes appending 100 each to one stream: offsets 0..399 exactly once, each process in order", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    const workers = await Promise.all(Array.from({ length: 4 }, () => startWorker(schema)));
    const answers = await Promise.all(workers.map((w, i) => w.ask(`append shared 100 w${i}`)));
    const perWorker = answers.map((a) => {
      expect(a).toMatch(/^appended /);
      return a.slice("appended ".length).split(",").map(Number);
    });
    for (const offsets of perWorker) {
      expect(offsets).toHaveLength(100);
      expect(offsets).toEqual([...offsets].sort((x, y) => x - y)); // call order = offset order
    }
    expect(perWorker.flat().sort((x, y) => x - y)).toEqual(Array.from({ length: 400 }, (_, i) => i));
    const entries = await store.appendLog.readFrom("shared", 0, 1000);
    expect(entries.map((e) => e.offset)).toEqual(Array.from({ length: 400 }, (_, i) => i));
    expect(await store.appendLog.length("shared")).toBe(400);
    for (let w = 0; w < 4; w++) {
      const mine = entries.filter((e) => (e.value as { tag: string }).tag === `w${w}`);
      expect(mine.map((e) => (e.value as { i: number }).i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(mine.map((e) => e.offset)).toEqual(perWorker[w]);
    }
  }, 120_000);

  it("6 processes claiming one checkpoint, 10 rounds: exactly one wins each round", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    const workers = await Promise.all(Array.from({ length: 6 }, () => startWorker(schema)));
    for (let round = 0; round < 10; round++) {
      const runId = `run-${round}`;
      await store.checkpoints.save(conformancePausedRun(runId));
      const answers = await Promise.all(workers.map((w) => w.ask(`claim ${runId}`)));
      expect(answers.filter((a) => a === `won ${runId}`)).toHaveLength(1);
      expect(answers.filter((a) => a === `conflict ${runId}`)).toHaveLength(5);
      // The winner owns the run at the next epoch; its checkpoint stays for it to continue from.
      const record = await store.checkpoints.record(runId);
      expect(record?.epoch).toBe(2);
      expect(record?.ownerId).toMatch(/^pg-\d+$/);
      expect(await store.checkpoints.load(runId)).toEqual(conformancePausedRun(runId));
    }
  }, 120_000);
});
