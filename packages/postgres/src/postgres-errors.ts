import { redactSecrets, TinyAgentsError } from "@tinyagents/inference";
import type pg from "pg";

/** SQLSTATEs (and Node socket codes) a caller can do something about, with what to do. */
const HINTS: Record<string, string> = {
  "08001": "the server is not reachable; check the URL, that Postgres runs and accepts TCP connections",
  "08006": "the connection broke; check that the server is up, then retry",
  "28P01": "password authentication failed; check the user and password in the URL",
  "28000": "the server refused this user (pg_hba.conf); check the user and the server's access rules",
  "3D000": "the database does not exist; create it (createdb) or fix the URL",
  "42P01": "the tinyagents tables do not exist in this schema; open once with migrate: true (the default)",
  "42501": "the user lacks a privilege; grant it CREATE and USAGE on the schema",
  "53100": "the server's disk is full; free space on the database volume, then retry",
  "53200": "the server ran out of memory; retry, or lower the pool size (max) or the server's load",
  "53300": "too many connections; lower the pool size (max) or raise the server's max_connections",
  "25006":
    "the database is read-only (a standby, or default_transaction_read_only); point the URL at the primary",
  "57P01": "the server is shutting down; retry against a running server",
  "57P03": "the server is starting up or in recovery and refuses connections for now; retry shortly",
  "57014": "the statement was cancelled (statement_timeout or a cancel request); retry, or raise the timeout",
  "55P03": "a lock could not be taken (lock_timeout); another writer holds it, retry",
  "40P01": "a deadlock was detected and this transaction was chosen to abort; retry",
  "40001": "a serialization failure: a concurrent transaction changed the same rows; retry",
  "23505": "a unique constraint refused the write: another writer took the same key or offset",
  XX001: "Postgres found a damaged data page; restore the table from a backup (the data may be corrupt)",
  XX002: "Postgres found a damaged index; REINDEX it",
  ECONNREFUSED: "nothing listens at that host and port; start Postgres or fix the URL",
  ECONNRESET: "the connection was reset; check that the server is up, then retry",
  ETIMEDOUT: "the server did not answer in time; check the network and the host, then retry",
  ENOTFOUND: "the host name does not resolve; fix the host in the URL",
  EAI_AGAIN: "the host name could not be resolved right now (DNS); retry",
};

/** What a whole SQLSTATE class means, when its exact code has no hint of its own. */
const CLASS_HINTS: Record<string, string> = {
  "08": "the connection failed; check that the server is up and reachable, then retry",
  "53": "the server lacks a resource (disk, memory, connections); free it, then retry",
  "40": "the transaction was rolled back to let another one through; retry",
  "57": "an operator or the server stopped the statement; retry against a running server",
  "25": "the transaction state refused the statement (read-only?); check the server's mode",
  XX: "an internal Postgres error (possibly corruption); check the server's log",
};

/** Failures after which the same write may simply be tried again. */
const RETRYABLE = new Set([
  "40001",
  "40P01",
  "53300",
  "55P03",
  "57P01",
  "57P03",
  "ECONNRESET",
  "ETIMEDOUT",
  "EAI_AGAIN",
]);

/**
 * Where a store's statements go, safe to print: the table (schema-qualified) and the database
 * as `name@host:port`. Never the user's password: only the URL's path, host and port are read.
 */
export interface PgTarget {
  table?: string;
  database: string;
}

/** The SQLSTATE (or Node socket code) of a driver error. */
export function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The database a pool connects to, as `name@host:port` (from its URL or its options; no password). */
export function pgDatabase(pool: pg.Pool): string {
  const options = ((pool as unknown as { options?: Record<string, unknown> }).options ?? {}) as Record<
    string,
    unknown
  >;
  let name = typeof options.database === "string" ? options.database : undefined;
  let host = typeof options.host === "string" ? options.host : undefined;
  let port =
    typeof options.port === "number" || typeof options.port === "string" ? String(options.port) : undefined;
  if (typeof options.connectionString === "string") {
    try {
      const url = new URL(options.connectionString);
      name ??= safeDecode(url.pathname.replace(/^\//, "")) || undefined;
      host ??= url.hostname || undefined;
      port ??= url.port || undefined;
    } catch {
      // Not a URL (a key=value string): name what the environment says below.
    }
  }
  name ??= process.env.PGDATABASE ?? "(default database)";
  host ??= process.env.PGHOST ?? "localhost";
  port ??= process.env.PGPORT ?? "5432";
  return `${name}@${host}:${port}`;
}

/**
 * Wrap a Postgres failure as a `storage` error that says what was being done, on which table of
 * which database, and what to check. `details`: `action`, `table`, `database`, `pgCode` and
 * `retryable` (a deadlock, a serialization failure, a lost connection: the write may simply be
 * retried). Registered secrets (the URL's password) are masked in the driver's message.
 */
export function postgresError(action: string, error: unknown, target?: PgTarget): TinyAgentsError {
  if (TinyAgentsError.isInstance(error)) return error;
  const code = pgCode(error);
  const hint =
    (code === undefined ? undefined : (HINTS[code] ?? CLASS_HINTS[code.slice(0, 2)])) ?? "see the cause";
  // A driver message can echo connection settings: registered credentials are masked.
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  const where =
    target === undefined
      ? ""
      : `${target.table === undefined ? "" : ` on table ${target.table}`} in database ${target.database}`;
  return new TinyAgentsError(
    "storage",
    `Postgres: could not ${action}${where}${code === undefined ? "" : ` (${code})`}: ${message}; ${hint}`,
    {
      cause: error,
      details: {
        action,
        ...(target?.table === undefined ? {} : { table: target.table }),
        ...(target === undefined ? {} : { database: target.database }),
        ...(code === undefined ? {} : { pgCode: code }),
        retryable: code !== undefined && (RETRYABLE.has(code) || code.startsWith("08")),
      },
    },
  );
}

/** Await `work`, turning driver errors into `storage` errors (tinyagents errors pass through). */
export async function guardPg<T>(action: string, work: () => Promise<T>, target?: PgTarget): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw postgresError(action, error, target);
  }
}

/** {@link guardPg} bound to one target: what each store calls its statements through. */
export function pgGuard(target: PgTarget): <T>(action: string, work: () => Promise<T>) => Promise<T> {
  return (action, work) => guardPg(action, work, target);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
