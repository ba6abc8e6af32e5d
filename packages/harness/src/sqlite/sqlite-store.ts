import { SqliteAppendLog } from "./sqlite-append-log.js";
import { openSqliteDatabase, type SqliteDb, type SqliteOpenOptions } from "./sqlite-database.js";
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
}

/**
 * One SQLite file holding everything a tinyagents deployment persists: key-value data
 * (`keyValue`), append logs such as journals and chat histories (`appendLog`), run status
 * (`statusStore`) and cached responses (`responseCache`). WAL mode: several processes may open
 * the same file; writes are short IMMEDIATE transactions with a busy timeout. Group commit: the
 * log appends and status saves of one event-loop turn are one transaction (each write stays
 * atomic on its own); their promises resolve once it committed.
 *
 * Requires the optional peer dependency `better-sqlite3` (version 12; it is only loaded by this
 * `@tinyagents/harness/sqlite` entry point). Calls are synchronous under the hood (better-sqlite3
 * is), wrapped in promises to fit the store interfaces; keep transactions small.
 */
export class SqliteStore {
  readonly filename: string;
  readonly keyValue: SqliteKeyValueStore;
  readonly appendLog: SqliteAppendLog;
  readonly statusStore: SqliteHarnessStatusStore;
  readonly responseCache: SqliteResponseCache;
  private readonly db: SqliteDb;
  private readonly commit: SqliteGroupCommit;

  private constructor(filename: string, db: SqliteDb, options: SqliteStoreOptions) {
    const now = options.now ?? Date.now;
    this.filename = filename;
    this.db = db;
    this.commit = new SqliteGroupCommit(db);
    this.keyValue = new SqliteKeyValueStore(db, now);
    this.appendLog = new SqliteAppendLog(db, this.commit);
    this.statusStore = new SqliteHarnessStatusStore(db, options.maxFinishedRuns, this.commit);
    this.responseCache = new SqliteResponseCache(db, now);
  }

  /** Open (or create) `filename`; `":memory:"` for a private in-memory database. */
  static open(filename: string, options: SqliteStoreOptions = {}): SqliteStore {
    return new SqliteStore(filename, openSqliteDatabase(filename, options), options);
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
