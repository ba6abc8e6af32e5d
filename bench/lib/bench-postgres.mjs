/**
 * The Postgres server a bench tool measures against: the one TINYAGENTS_BENCH_POSTGRES_URL names,
 * or a throwaway one started here (`startTestPostgres`: Debian's binaries, 127.0.0.1, a temp dir)
 * whose URL is put in that variable for the adapters. Returns the started server (stop it when
 * done), or undefined when the variable was already set.
 */
export async function ensureBenchPostgres() {
  if (process.env.TINYAGENTS_BENCH_POSTGRES_URL) return undefined;
  const { startTestPostgres } = await import("@tinyagents/postgres/testing");
  const server = await startTestPostgres();
  process.env.TINYAGENTS_BENCH_POSTGRES_URL = server.url;
  return server;
}
