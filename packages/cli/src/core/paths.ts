import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * Where the CLI keeps its store (threads, journals, run status): `--db FILE|postgres://...` >
 * `$TINYAGENTS_DATABASE_URL` (a Postgres database shared with workers) >
 * `$TINYAGENTS_HOME/tinyagents.db` > `$XDG_DATA_HOME/tinyagents/tinyagents.db`
 * > `~/.local/share/tinyagents/tinyagents.db`. A `postgres://` URL is returned as it is.
 */
export function resolveDbPath(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  db?: string,
): string {
  if (db !== undefined && db !== "") return /^postgres(ql)?:\/\//i.test(db) ? db : resolve(cwd, db);
  const url = env.TINYAGENTS_DATABASE_URL;
  if (url !== undefined && url !== "") return url;
  const home = env.TINYAGENTS_HOME;
  if (home !== undefined && home !== "") return join(resolve(cwd, home), "tinyagents.db");
  const xdg = env.XDG_DATA_HOME;
  const base = xdg !== undefined && xdg !== "" ? xdg : join(env.HOME ?? homedir(), ".local", "share");
  return join(base, "tinyagents", "tinyagents.db");
}
