import { skipPostgres, type TestPostgres } from "@tinyagents/postgres/testing";

/**
 * Why the DBOS tests are skipped — only when asked explicitly (TINYAGENTS_SKIP_POSTGRES=1, said
 * on stderr by `skipPostgres`, or TINYAGENTS_SKIP_DBOS=1, said here); undefined: they run.
 */
export function dbosSkipReason(file: string): string | undefined {
  let reason: string | undefined;
  if (skipPostgres()) reason = "TINYAGENTS_SKIP_POSTGRES=1 is set";
  else if (process.env.TINYAGENTS_SKIP_DBOS === "1") reason = "TINYAGENTS_SKIP_DBOS=1 is set";
  if (reason !== undefined) console.warn(`${file}: DBOS tests SKIPPED, ${reason} (CI runs them).`);
  return reason;
}

/** The URL of database `name` on the test server (DBOS creates it on launch). */
export function databaseUrl(server: TestPostgres, name: string): string {
  return server.url.replace(/\/postgres$/, `/${name}`);
}
