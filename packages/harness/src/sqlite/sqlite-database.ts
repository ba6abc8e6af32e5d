import { TinyAgentsError, validationError } from "@tinyagents/inference";
import type { SqliteConnection, SqliteDriverName, SqliteStatement } from "./drivers/sqlite-driver.js";
import { type SqliteDriverChoice, selectSqliteDriver } from "./select-driver.js";

export type { SqliteStatement } from "./drivers/sqlite-driver.js";

/** A transaction function: call it for a deferred transaction, `.immediate(...)` to take the write lock first. */
export interface SqliteTransaction<A extends unknown[], R> {
  (...args: A): R;
  immediate(...args: A): R;
}

/** The database the stores use: a driver's connection plus transactions and pragmas, the same on every driver. */
export interface SqliteDb {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  /**
   * Wrap `fn` in a transaction (nested calls use savepoints); a throw rolls it back. With
   * `inline`, the transaction functions `fn` calls run inline, without savepoints of their own:
   * a throw anywhere rolls the whole transaction back (the group commit's outer transaction,
   * which reruns its writes one by one when one of them fails).
   */
  transaction<A extends unknown[], R>(
    fn: (...args: A) => R,
    options?: { inline?: boolean },
  ): SqliteTransaction<A, R>;
  /** Run `PRAGMA source`; with `simple`, return the first column of its first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /**
   * How many transactions and savepoints of `transaction` functions were rolled back (or failed
   * to commit) on this connection so far: state a store derived from writes inside a
   * transaction (what `SqliteOwnWrites` remembers) is stale once this moved.
   */
  readonly rollbacks: number;
  /** How many outermost transactions of `transaction` functions began on this connection so far. */
  readonly transactions: number;
  close(): void;
  readonly open: boolean;
  /** The SQLite library behind this database. */
  readonly driver: SqliteDriverName;
  /** The file it was opened from (`":memory:"` for a private database), for error messages. */
  readonly filename: string;
}

/** Options of `SqliteStore.open`. */
export interface SqliteOpenOptions {
  /** How long a write waits for another connection's lock before failing (default 5,000 ms). */
  busyTimeoutMs?: number;
  /**
   * Which SQLite library to use (default: `TINYAGENTS_SQLITE_DRIVER`, else `"auto"`: `bun:sqlite`
   * under Bun, `node:sqlite` on Node >= 22.13, the `better-sqlite3` package on Node 20).
   */
  driver?: SqliteDriverChoice;
}

/** Bumped when the schema changes; stored in `PRAGMA user_version`. */
export const SQLITE_SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  expires_at INTEGER,
  PRIMARY KEY (namespace, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log (
  stream TEXT NOT NULL,
  offset INTEGER NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (stream, offset)
);
CREATE TABLE IF NOT EXISTS run_status (
  run_id TEXT PRIMARY KEY,
  root_run_id TEXT NOT NULL,
  thread_id TEXT,
  status TEXT NOT NULL,
  active INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  ended_at INTEGER,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS run_status_root ON run_status (root_run_id);
CREATE INDEX IF NOT EXISTS run_status_thread ON run_status (thread_id);
CREATE INDEX IF NOT EXISTS run_status_active ON run_status (active, ended_at);
CREATE INDEX IF NOT EXISTS run_status_started ON run_status (started_at, run_id);
CREATE TABLE IF NOT EXISTS response_cache (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER
);
`;

/**
 * Open (creating if needed) a tinyagents SQLite file: WAL journal mode (readers never block the
 * writer; several processes may share the file), `synchronous = NORMAL` (a committed write
 * survives a process crash; with WAL it may be lost only on power failure), a busy timeout,
 * and the schema. `":memory:"` opens a private in-memory database (no WAL).
 */
export function openSqliteDatabase(filename: string, options: SqliteOpenOptions = {}): SqliteDb {
  if (typeof filename !== "string" || filename === "") {
    throw validationError('SqliteStore.open needs a file name (or ":memory:")', { field: "filename" });
  }
  const driver = selectSqliteDriver(options.driver);
  let db: SqliteDb | undefined;
  try {
    db = sqliteDb(driver.open(filename), driver.name, filename);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    if (filename !== ":memory:") db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    // Deleted rows are zeroed on disk, not left in free pages: a durable run's checkpoint (its
    // unredacted transcript, deleted when the run ends) must not outlive it in the file.
    db.pragma("secure_delete = ON");
    db.exec(SCHEMA);
    const version = db.pragma("user_version", { simple: true });
    if (version === 0) db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
    else if (version !== SQLITE_SCHEMA_VERSION) {
      throw new TinyAgentsError(
        "storage",
        `${filename} has schema version ${String(version)}, this library expects ${SQLITE_SCHEMA_VERSION}; ` +
          "use a matching @tinyagents/harness version or a new file",
        { details: { filename, version: Number(version) } },
      );
    }
    return db;
  } catch (error) {
    db?.close();
    if (TinyAgentsError.isInstance(error)) throw error;
    throw sqliteError(`open ${filename}`, error);
  }
}

/** Transactions and pragmas over a driver's connection (SQL only, so every driver behaves alike). */
function sqliteDb(connection: SqliteConnection, driver: SqliteDriverName, filename: string): SqliteDb {
  let depth = 0;
  let rollbacks = 0;
  let transactions = 0;
  // Set while an `inline` transaction runs: nested transaction functions skip their savepoints.
  let inline = false;
  // Transaction control runs as prepared statements, compiled once per connection: `exec` compiles
  // its SQL on every call, and a group commit issues ~2 + 2 per write of these (BEGIN, COMMIT, a
  // SAVEPOINT and RELEASE per write) — that compiling was ~20% of a journaled run's CPU.
  const control = new Map<string, SqliteStatement>();
  const run = (sql: string): void => {
    let statement = control.get(sql);
    if (statement === undefined) {
      statement = connection.prepare(sql);
      control.set(sql, statement);
    }
    statement.run();
  };
  const savepoints: { save: string; release: string; rollback: string }[] = [];
  const savepointAt = (level: number) => {
    let sql = savepoints[level];
    if (sql === undefined) {
      const name = `tinyagents_${level}`;
      sql = { save: `SAVEPOINT ${name}`, release: `RELEASE ${name}`, rollback: `ROLLBACK TO ${name}` };
      savepoints[level] = sql;
    }
    return sql;
  };
  const wrap =
    <A extends unknown[], R>(fn: (...args: A) => R, begin: string, inlineNested: boolean) =>
    (...args: A): R => {
      if (depth > 0) {
        if (inline) return fn(...args);
        const savepoint = savepointAt(depth);
        run(savepoint.save);
        depth++;
        try {
          const result = fn(...args);
          run(savepoint.release);
          return result;
        } catch (error) {
          rollbacks++;
          try {
            run(savepoint.rollback);
            run(savepoint.release);
          } catch {
            // SQLite already rolled the whole transaction back (SQLITE_FULL, SQLITE_IOERR...):
            // the savepoint is gone; the original error is the one that explains it.
          }
          throw error;
        } finally {
          depth--;
        }
      }
      run(begin);
      transactions++;
      depth++;
      inline = inlineNested;
      try {
        const result = fn(...args);
        run("COMMIT");
        return result;
      } catch (error) {
        rollbacks++;
        try {
          run("ROLLBACK");
        } catch {
          // SQLite already rolled back (e.g. after SQLITE_FULL); the original error matters.
        }
        throw error;
      } finally {
        depth--;
        inline = false;
      }
    };
  return {
    driver,
    filename,
    prepare: (sql) => connection.prepare(sql),
    exec: (sql) => connection.exec(sql),
    transaction<A extends unknown[], R>(
      fn: (...args: A) => R,
      options: { inline?: boolean } = {},
    ): SqliteTransaction<A, R> {
      const nested = options.inline === true;
      return Object.assign(wrap(fn, "BEGIN", nested), { immediate: wrap(fn, "BEGIN IMMEDIATE", nested) });
    },
    pragma(source, options = {}) {
      if (options.simple !== true) return connection.exec(`PRAGMA ${source}`);
      const row = connection.prepare(`PRAGMA ${source}`).get() as Record<string, unknown> | undefined;
      return row === undefined ? undefined : Object.values(row)[0];
    },
    get rollbacks() {
      return rollbacks;
    },
    get transactions() {
      return transactions;
    },
    close: () => {
      control.clear();
      connection.close();
    },
    get open() {
      return connection.isOpen;
    },
  };
}

/**
 * Wrap a SQLite failure as a `storage` error that says what was being done, in which file (when
 * known), and what to check.
 */
export function sqliteError(action: string, error: unknown, file?: string): TinyAgentsError {
  const code = sqliteCode(error);
  const where = file === undefined ? "" : ` in ${file}`;
  return new TinyAgentsError(
    "storage",
    `SQLite: could not ${action}${where}${code === undefined ? "" : ` (${code})`}: ${errorMessage(error)}; ${hintFor(code)}`,
    {
      cause: error,
      details: {
        action,
        ...(file === undefined ? {} : { file }),
        ...(code === undefined ? {} : { sqliteCode: code }),
      },
    },
  );
}

/** The `SQLITE_*` code of a driver error (better-sqlite3 and Bun: `code`; node:sqlite: `errstr`/`errcode`). */
export function sqliteErrorCode(error: unknown): string | undefined {
  return sqliteCode(error);
}

function sqliteCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errcode?: unknown } | undefined;
  if (typeof e?.code === "string" && e.code.startsWith("SQLITE_")) return e.code;
  const primary = typeof e?.errcode === "number" ? PRIMARY_CODES[e.errcode & 0xff] : undefined;
  if (primary !== undefined) return primary;
  return typeof e?.code === "string" && e.code !== "ERR_SQLITE_ERROR" ? e.code : undefined;
}

/** SQLite's primary result codes that have a specific hint (node:sqlite reports them as numbers). */
const PRIMARY_CODES: Record<number, string> = {
  5: "SQLITE_BUSY",
  8: "SQLITE_READONLY",
  11: "SQLITE_CORRUPT",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  26: "SQLITE_NOTADB",
};

function hintFor(code: string | undefined): string {
  if (code === undefined) return "see the cause";
  if (code.startsWith("SQLITE_BUSY"))
    return "another connection held the lock past the busy timeout; retry or raise busyTimeoutMs";
  if (code.startsWith("SQLITE_CANTOPEN")) return "check that the directory exists and is writable";
  if (code.startsWith("SQLITE_READONLY")) return "the file or its directory is read-only; check permissions";
  if (code.startsWith("SQLITE_FULL")) return "the disk is full; free space";
  if (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB")) {
    return "the file is not a tinyagents SQLite database or is damaged; use another file";
  }
  return "see the cause";
}

/** Run `fn`, turning SQLite exceptions into `storage` errors naming `action` and `file`. */
export function guard<T>(action: string, fn: () => T, file?: string): T {
  try {
    return fn();
  } catch (error) {
    if (TinyAgentsError.isInstance(error)) throw error;
    throw sqliteError(action, error, file);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
