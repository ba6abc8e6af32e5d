/**
 * The setup the DBOS suites that drive worker processes share: a throwaway Postgres, the DBOS
 * system database (created by a first worker), a client with the Postgres event journal, a temp
 * directory for the execution ledger; all torn down after the suite's last test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDbosClient, type DbosAgentsClient } from "@tinyagents/dbos";
import { AppendLogEventJournal } from "@tinyagents/harness";
import { PostgresStore } from "@tinyagents/postgres";
import { startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, afterEach, beforeAll } from "vitest";
import { databaseUrl } from "./postgres.js";
import { bundleWorker, removeWorkerBundle, startWorker, type Worker, type WorkerConfig } from "./workers.js";

/** What {@link useDbosCluster} gives a suite (usable inside its tests, once `beforeAll` ran). */
export interface DbosCluster {
  /** The client of the `ops` queue, journaling to the Postgres event journal. */
  readonly client: DbosAgentsClient<"ops">;
  /** The execution ledger every worker of the suite appends to. */
  readonly ledgerPath: string;
  /** Every worker the suite started (each still alive is killed after every test). */
  readonly workers: Worker[];
  /** A worker's configuration against this cluster: `extra` adds to or replaces the defaults. */
  config(executorId: string, extra?: Partial<WorkerConfig>): WorkerConfig;
}

/**
 * Register the suite's `beforeAll` / `afterAll` (call it inside the `describe`): the system
 * database is `database` on a fresh test Postgres, the temp directory is named after it.
 */
export function useDbosCluster(database: string): DbosCluster {
  let pg: TestPostgres | undefined;
  let client: DbosAgentsClient<"ops"> | undefined;
  let events: PostgresStore | undefined;
  let dir = "";
  const workers: Worker[] = [];
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("useDbosCluster: used before the suite's beforeAll ran");
    return value;
  };
  const cluster: DbosCluster = {
    get client() {
      return started(client);
    },
    get ledgerPath() {
      return join(dir, "ledger.jsonl");
    },
    workers,
    config: (executorId, extra = {}) => ({
      url: databaseUrl(started(pg), database),
      executorId,
      ledgerPath: join(dir, "ledger.jsonl"),
      journalUrl: started(pg).url,
      ...extra,
    }),
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `tinyagents-dbos-${database}-`));
    await bundleWorker();
    pg = await startTestPostgres();
    // A first worker creates the system database; the client connects after it.
    await (await startWorker(cluster.config("boot"), workers)).stop();
    events = await PostgresStore.open(pg.url);
    client = await createDbosClient<"ops">({
      systemDatabaseUrl: databaseUrl(pg, database),
      journal: new AppendLogEventJournal(events.appendLog),
    });
  }, 60_000);
  // A test that failed before stopping its workers must not leave them dequeuing: a stale worker
  // takes the next test's runs from the shared queue (no kill point there), and that test hangs.
  afterEach(async () => {
    for (const w of workers) await w.kill();
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    removeWorkerBundle();
    await client?.close();
    await events?.close();
    await pg?.stop();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });
  return cluster;
}
