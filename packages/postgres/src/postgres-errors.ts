import { redactSecrets, TinyAgentsError } from "@tinyagents/inference";

/** SQLSTATEs a caller can do something about, with what to do. */
const HINTS: Record<string, string> = {
  "08001": "the server is not reachable; check the URL, that Postgres runs and accepts TCP connections",
  "08006": "the connection broke; check that the server is up, then retry",
  "28P01": "password authentication failed; check the user and password in the URL",
  "28000": "the server refused this user (pg_hba.conf); check the user and the server's access rules",
  "3D000": "the database does not exist; create it (createdb) or fix the URL",
  "42P01": "the tinyagents tables do not exist in this schema; open once with migrate: true (the default)",
  "42501": "the user lacks a privilege; grant it CREATE and USAGE on the schema",
  "53300": "too many connections; lower the pool size (max) or raise the server's max_connections",
  "57P01": "the server is shutting down; retry against a running server",
  "40P01": "a deadlock was detected and this transaction was chosen to abort; retry",
  "23505": "a unique constraint refused the write: another writer took the same key or offset",
};

/** The SQLSTATE (or Node socket code) of a driver error. */
export function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Wrap a Postgres failure as a `storage` error that says what was being done and what to check. */
export function postgresError(action: string, error: unknown): TinyAgentsError {
  if (TinyAgentsError.isInstance(error)) return error;
  const code = pgCode(error);
  const hint =
    (code === undefined ? undefined : HINTS[code]) ??
    (code === "ECONNREFUSED"
      ? "nothing listens at that host and port; start Postgres or fix the URL"
      : "see the cause");
  // A driver message can echo connection settings: registered credentials are masked.
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  return new TinyAgentsError(
    "storage",
    `Postgres: could not ${action}${code === undefined ? "" : ` (${code})`}: ${message}; ${hint}`,
    { cause: error, details: { action, ...(code === undefined ? {} : { pgCode: code }) } },
  );
}

/** Await `work`, turning driver errors into `storage` errors (tinyagents errors pass through). */
export async function guardPg<T>(action: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw postgresError(action, error);
  }
}
