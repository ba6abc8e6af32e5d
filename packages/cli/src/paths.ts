import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * Where the CLI keeps its SQLite store (threads, journals, run status):
 * `--db FILE` > `$TINYAGENTS_HOME/tinyagents.db` > `$XDG_DATA_HOME/tinyagents/tinyagents.db`
 * > `~/.local/share/tinyagents/tinyagents.db`.
 */
export function resolveDbPath(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  db?: string,
): string {
  if (db !== undefined && db !== "") return resolve(cwd, db);
  const home = env.TINYAGENTS_HOME;
  if (home !== undefined && home !== "") return join(resolve(cwd, home), "tinyagents.db");
  const xdg = env.XDG_DATA_HOME;
  const base = xdg !== undefined && xdg !== "" ? xdg : join(env.HOME ?? homedir(), ".local", "share");
  return join(base, "tinyagents", "tinyagents.db");
}
