import { CheckpointStore, PausedRunStore } from "@tinyagents/harness";
import { isActiveStatus } from "@tinyagents/harness/observability";
import { displayUrl, type JsonValue, registerSecrets, validationError } from "@tinyagents/inference";
import pg from "pg";
import { PostgresAppendLog } from "./postgres-append-log.js";
import { guardPg, pgDatabase, postgresError } from "./postgres-errors.js";
import { PostgresGroupCommit } from "./postgres-group-commit.js";
import { PostgresKeyValueStore } from "./postgres-key-value-store.js";
import { PostgresOneStatementCommit } from "./postgres-one-statement-commit.js";
import { PostgresResponseCache } from "./postgres-response-cache.js";
import { runStartSql, startRun } from "./postgres-run-start.js";
import {
  DEFAULT_POSTGRES_SCHEMA,
  migratePostgres,
  type PostgresTables,
  postgresTables,
} from "./postgres-schema.js";
import { PostgresHarnessStatusStore } from "./postgres-status-store.js";
import { StreamTails } from "./postgres-stream-tails.js";
import { inTransaction } from "./postgres-transaction.js";

/** Options of {@link PostgresStore.open}. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (or use `pool`). */
  url?: string;
  /** Your own `pg.Pool` instead of `url`; `close()` then leaves it open. */
  pool?: pg.Pool;
  /** Schema holding the tables (default `tinyagents`); one deployment per schema. */
  schema?: string;
  /**
   * Connections of the pool this store creates (default 10). A worker needs about one for its
   * group commit plus one per concurrent read; keep workers x max under the server's `max_connections`.
   * That pool keeps one connection open while idle (its prepared statements with it) and does not
   * keep the process alive for it; give your own `pool` `min: 1` for the same.
   */
  max?: number;
  /** Create the schema and apply missing migrations on open (default true). */
  migrate?: boolean;
  /**
   * Prepare the hot statements (the group commit, a durable run's start) by name on each
   * connection, so the server plans them once per connection instead of once per call (default
   * true). Set false behind a pooler in transaction mode that does not keep named statements
   * (PgBouncer before 1.21, or without `max_prepared_statements`); without it such a pooler still
   * works, each commit first failing on the missing statement and then taking a transaction.
   */
  namedStatements?: boolean;
  /** Clock for TTLs (default `Date.now`). */
  now?: () => number;
  /** Finished runs the status store keeps (default 10,000). */
  maxFinishedRuns?: number;
}

/**
 * One Postgres database (one schema in it) holding everything a tinyagents deployment persists,
 * shared by many workers, the CLI and a UI: key-value data with atomic claims (`keyValue`,
 * `checkpoints`, `pausedRuns`), append logs such as event journals (`appendLog`), run status with
 * liveness (`statusStore`, `reapStale`) and cached responses (`responseCache`), over one `pg.Pool`.
 * Group commit: the log appends and status saves of one event-loop turn are one transaction —
 * usually one statement, one round trip — (each write stays atomic on its own); their promises
 * resolve once it committed. `flush()` commits
 * what is waiting now; `close()` flushes, then ends the pool it created.
 */
export class PostgresStore {
  readonly schema: string;
  readonly pool: pg.Pool;
  readonly keyValue: PostgresKeyValueStore;
  readonly appendLog: PostgresAppendLog;
  readonly statusStore: PostgresHarnessStatusStore;
  readonly responseCache: PostgresResponseCache;
  /** Checkpoints of running runs (`durability.checkpoints`), claimed with one atomic `take`. */
  readonly checkpoints: CheckpointStore;
  /** Paused runs, resumable from any worker; a resume claims one atomically. */
  readonly pausedRuns: PausedRunStore;
  private readonly commit: PostgresGroupCommit;
  private readonly ownsPool: boolean;
  private closed = false;
  /** Where the store is, safe to print (the URL with its password and query values masked). */
  private where = "(your pool)";

  private constructor(
    pool: pg.Pool,
    ownsPool: boolean,
    tables: PostgresTables,
    options: PostgresStoreOptions,
  ) {
    const now = options.now ?? Date.now;
    this.schema = tables.schema;
    this.pool = pool;
    this.ownsPool = ownsPool;
    const tails = new StreamTails();
    // A batch of appends and status saves is one statement (one round trip) when it can be.
    const named = options.namedStatements !== false;
    const oneStatement = new PostgresOneStatementCommit(
      pool,
      tables,
      tails,
      (finished) => this.statusStore.afterFinished(finished),
      named,
    );
    this.commit = new PostgresGroupCommit(pool, (parts) => oneStatement.commit(parts));
    this.keyValue = new PostgresKeyValueStore(pool, tables, now);
    this.appendLog = new PostgresAppendLog(pool, tables, this.commit, tails);
    this.statusStore = new PostgresHarnessStatusStore(pool, tables, this.commit, options.maxFinishedRuns);
    this.responseCache = new PostgresResponseCache(pool, tables, now);
    // A new run's record (its input and config) and its first `running` status: one statement
    // (an already finished status, which the retention bound must count, takes a transaction).
    const start = runStartSql(tables, named);
    this.checkpoints = new CheckpointStore(this.keyValue, undefined, undefined, {
      startWithStatus: (namespace, key, _expected, next, status) =>
        guardPg(
          `start run "${key}" (its record in ${tables.kv} and its status in ${tables.runStatus})`,
          () =>
            isActiveStatus(status.status)
              ? startRun(
                  pool,
                  start,
                  this.keyValue.createParams(namespace, key, next as unknown as JsonValue),
                  status,
                )
              : inTransaction(pool, async (client) => {
                  if (!(await this.keyValue.createIn(client, namespace, key, next as unknown as JsonValue)))
                    return false;
                  await this.statusStore.saveIn(client, status);
                  return true;
                }),
          { database: pgDatabase(pool) },
        ),
    });
    this.pausedRuns = new PausedRunStore(this.keyValue);
  }

  /**
   * Connect, create the schema if needed (idempotent migrations, safe when several workers open
   * at once) and hand out the stores. Throws `storage` naming what failed (unreachable server,
   * authentication, missing database or privileges) and `validation` for bad options.
   */
  static async open(urlOrOptions: string | PostgresStoreOptions): Promise<PostgresStore> {
    const options = typeof urlOrOptions === "string" ? { url: urlOrOptions } : urlOrOptions;
    const tables = postgresTables(options.schema ?? DEFAULT_POSTGRES_SCHEMA);
    if ((options.url === undefined) === (options.pool === undefined)) {
      throw validationError("PostgresStore.open needs exactly one of url or pool", { field: "url" });
    }
    if (options.max !== undefined && (!Number.isInteger(options.max) || options.max < 1)) {
      throw validationError(`max must be a positive integer, got ${String(options.max)}`, { field: "max" });
    }
    const ownsPool = options.pool === undefined;
    const pool = options.pool ?? new pg.Pool(ownPoolConfig(options.url as string, options.max ?? 10));
    if (options.url !== undefined) {
      // The URL's password is a credential: masked in every message, and kept out of
      // JSON.stringify / util.inspect of the pool (pg hides `password`, not `connectionString`).
      registerSecrets(urlPassword(options.url));
      if (ownsPool) hideConnectionString(pool);
    }
    // An idle connection that breaks (server restart) is dropped by the pool; without a listener
    // its "error" event would crash the process. The next query reconnects or reports it.
    if (ownsPool) pool.on("error", () => undefined);
    try {
      if (options.migrate !== false) await migratePostgres(pool, tables);
      else
        await pool
          .query("SELECT 1")
          .catch((error: unknown) =>
            Promise.reject(postgresError("connect", error, { database: pgDatabase(pool) })),
          );
      const store = new PostgresStore(pool, ownsPool, tables, options);
      store.where = options.url === undefined ? "(your pool)" : displayUrl(options.url);
      return store;
    } catch (error) {
      if (ownsPool) await pool.end().catch(() => undefined);
      throw error;
    }
  }

  /** `JSON.stringify(store)`: schema and the URL with its password masked, nothing else. */
  toJSON(): { type: "PostgresStore"; schema: string; url: string } {
    return { type: "PostgresStore", schema: this.schema, url: this.where };
  }

  /** `util.inspect(store)`: the same credential-free view as `toJSON`. */
  [Symbol.for("nodejs.util.inspect.custom")](): object {
    return this.toJSON();
  }

  /** Whether `close()` has been called. */
  get isOpen(): boolean {
    return !this.closed;
  }

  /** Commit the appends and status saves waiting for the end of this event-loop turn now. */
  flush(): Promise<void> {
    return this.commit.flush();
  }

  /** Commit what is waiting, then end the pool (when this store created it). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.commit.flush();
    if (this.ownsPool) await this.pool.end();
  }
}

/**
 * The pool `open({ url })` creates. It keeps one connection open while idle (`min: 1`): a server
 * serving a run now and then would otherwise reconnect and prepare its statements again after
 * each pause over pg's 10 s idle timeout (about 5 ms on loopback, before the run's own round
 * trip), and with one connection in use pg arms and clears no idle timer per query. An idle
 * connection does not keep the process alive (`allowExitOnIdle`), so a script that never calls
 * `close()` still exits once it has nothing else to do (before: 10 s later). Its connections use
 * TCP keepalive, since one of them may sit idle for hours.
 */
function ownPoolConfig(url: string, max: number): pg.PoolConfig {
  return {
    connectionString: url,
    max,
    min: 1,
    allowExitOnIdle: true,
    // The connection kept idle must not die unnoticed (a NAT or load balancer dropping quiet
    // flows, a failover without FIN): the OS probes it after 10 s of silence.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/**
 * Make the pool's `connectionString` (which holds the password) non-enumerable, as pg does for
 * `password`: clients still read it, `JSON.stringify` and `util.inspect` no longer print it.
 */
function hideConnectionString(pool: pg.Pool): void {
  const options = (pool as unknown as { options?: Record<string, unknown> }).options;
  if (options === undefined || !("connectionString" in options)) return;
  Object.defineProperty(options, "connectionString", {
    value: options.connectionString,
    enumerable: false,
    writable: true,
    configurable: true,
  });
}

/**
 * The password of a database URL (raw and decoded), to mask wherever it surfaces. Only the
 * password: the user name (`postgres`) and query values (`sslmode=require`) are ordinary words
 * that masking would scrub from every message.
 */
function urlPassword(url: string): string[] {
  let password: string;
  try {
    password = new URL(url).password;
  } catch {
    return [];
  }
  if (password === "") return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Not percent-encoded as a whole: the raw form is what appears in text.
  }
  return [password, decoded];
}
