import { TinyAgentsError, validationError } from "@tinyagents/inference";
import Database from "better-sqlite3";

/** The slice of a better-sqlite3 statement this module uses (kept local so no public type needs `@types/better-sqlite3`). */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The slice of a better-sqlite3 database this module uses. */
export interface SqliteDb {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): { (...args: A): R; immediate(...args: A): R };
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): unknown;
  readonly open: boolean;
}

/** Options of `SqliteStore.open`. */
export interface SqliteOpenOptions {
  /** How long a write waits for another connection's lock before failing (default 5,000 ms). */
  busyTimeoutMs?: number;
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
) WITHOUT ROWID;
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
  let db: SqliteDb | undefined;
  try {
    db = new Database(filename) as unknown as SqliteDb;
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    if (filename !== ":memory:") db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
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

/** Wrap a SQLite failure as a `storage` error that says what was being done. */
export function sqliteError(action: string, error: unknown): TinyAgentsError {
  const code = (error as { code?: unknown } | undefined)?.code;
  const hint =
    code === "SQLITE_BUSY"
      ? "another connection held the lock past the busy timeout; retry or raise busyTimeoutMs"
      : "check the file path, permissions and free disk space";
  return new TinyAgentsError(
    "storage",
    `SQLite: could not ${action}${typeof code === "string" ? ` (${code})` : ""}: ${errorMessage(error)}; ${hint}`,
    { cause: error, details: { action, ...(typeof code === "string" ? { sqliteCode: code } : {}) } },
  );
}

/** Run `fn`, turning SQLite exceptions into `storage` errors. */
export function guard<T>(action: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (TinyAgentsError.isInstance(error)) throw error;
    throw sqliteError(action, error);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
