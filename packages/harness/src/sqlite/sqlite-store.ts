import type { JsonValue } from "@tinyagents/inference";
import { CheckpointStore } from "../durability/checkpoint-store.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { StoreWarning } from "../store/store-warning.js";
import type { SqliteDriverName } from "./drivers/sqlite-driver.js";
import { SqliteAppendLog } from "./sqlite-append-log.js";
import { guard, openSqliteDatabase, type SqliteDb, type SqliteOpenOptions } from "./sqlite-database.js";
import { SqliteGroupCommit } from "./sqlite-group-commit.js";
import { SqliteKeyValueStore } from "./sqlite-key-value-store.js";
import { SqliteResponseCache } from "./sqlite-response-cache.js";
import { SqliteHarnessStatusStore } from "./sqlite-status-store.js";

/** Options of {@link SqliteStore.open}. */
export interface SqliteStoreOptions extends SqliteOpenOptions {
  /** Clock for TTLs (default `Date.now`). */
  now?: () => number;
  /** Finished runs the status store keeps (default 10,000). */
  maxFinishedRuns?: number;
  /** Damaged records skipped by reads (default: `process.emitWarning`, naming the file). */
  onWarning?: (warning: StoreWarning) => void;
}

/**
 * One SQLite file holding everything a tinyagents deployment persists: key-value data
 * (`keyValue`), append logs such as journals and chat histories (`appendLog`), run status
 * (`statusStore`) and cached responses (`responseCache`). WAL mode: several processes may open
 * the same file; writes are short IMMEDIATE transactions with a busy timeout. Group commit: the
 * log appends and status saves of one event-loop turn are one transaction (each write stays
 * atomic on its own); their promises resolve once it committed.
 *
 * Runs on the runtime's own SQLite: `node:sqlite` on Node >= 22.13, `bun:sqlite` under Bun; on
 * Node 20 it needs the optional peer dependency `better-sqlite3` (version 12), loaded only when a
 * store opens (see `SqliteOpenOptions.driver`). Calls are synchronous under the hood (all three
 * drivers are), wrapped in promises to fit the store interfaces; keep transactions small.
 */
export class SqliteStore {
  readonly filename: string;
  readonly keyValue: SqliteKeyValueStore;
  readonly appendLog: SqliteAppendLog;
  readonly statusStore: SqliteHarnessStatusStore;
  readonly responseCache: SqliteResponseCache;
  /**
   * The durable run records (`agent.run(input, { durable: { store } })` with this store uses
   * them): a new run's record — its input and config — and its first `running` status record
   * are written in ONE transaction, so neither exists without the other.
   */
  readonly checkpoints: CheckpointStore;
  private readonly db: SqliteDb;
  private readonly commit: SqliteGroupCommit;

  private constructor(filename: string, db: SqliteDb, options: SqliteStoreOptions) {
    const now = options.now ?? Date.now;
    this.filename = filename;
    this.db = db;
    this.commit = new SqliteGroupCommit(db);
    this.keyValue = new SqliteKeyValueStore(db, now);
    const damaged = {
      file: filename,
      ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    };
    this.appendLog = new SqliteAppendLog(db, this.commit, damaged);
    this.statusStore = new SqliteHarnessStatusStore(db, options.maxFinishedRuns, this.commit, damaged);
    this.responseCache = new SqliteResponseCache(db, now);
    const startTx = db.transaction(
      (namespace: string, key: string, next: JsonValue, status: HarnessRunStatus): boolean => {
        if (!this.keyValue.compareAndSetNow(namespace, key, undefined, next)) return false;
        this.statusStore.saveNow(status);
        return true;
      },
    );
    this.checkpoints = new CheckpointStore(this.keyValue, undefined, undefined, {
      startWithStatus: async (namespace, key, _expected, next, status) =>
        guard(
          `start run "${key}"`,
          () => startTx.immediate(namespace, key, next as unknown as JsonValue, status),
          filename,
        ),
    });
  }

  /** Open (or create) `filename`; `":memory:"` for a private in-memory database. */
  static open(filename: string, options: SqliteStoreOptions = {}): SqliteStore {
    return new SqliteStore(filename, openSqliteDatabase(filename, options), options);
  }

  /** The SQLite library behind this store: `node:sqlite`, `bun:sqlite` or `better-sqlite3`. */
  get driver(): SqliteDriverName {
    return this.db.driver;
  }

  /** Whether the database is still open. */
  get isOpen(): boolean {
    return this.db.open;
  }

  /** Commit the appends and status saves waiting for the end of this event-loop turn now. */
  flush(): void {
    if (this.db.open) this.commit.flushNow();
  }

  /**
   * Close the database (checkpointing the WAL). Writes still waiting for their group commit are
   * committed first, so a clean close loses nothing. Idempotent.
   */
  close(): void {
    if (!this.db.open) return;
    this.commit.flushNow();
    this.db.close();
  }
}
