import { accessSync, constants, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";

/** Where `initdb` and `postgres` were found. */
export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** Major version from the Debian layout (`/usr/lib/postgresql/<major>/bin`), when known. */
  major?: number;
}

/** The hint every "no Postgres" error carries. */
export const INSTALL_HINT = "install Debian's postgresql package: apt-get install -y postgresql";

/** Thrown by `startTestPostgres` when no `initdb`/`postgres` pair is installed. Code `storage`. */
export class PostgresNotInstalledError extends TinyAgentsError {
  constructor(searched: readonly string[]) {
    super(
      "storage",
      `No PostgreSQL server binaries (initdb + postgres) found; searched ${searched.join(", ")}. ` +
        `To run the Postgres tests, ${INSTALL_HINT} (or .ci/postgres-deps); ` +
        "to skip them explicitly, set TINYAGENTS_SKIP_POSTGRES=1.",
      { details: { reason: "postgres_not_installed", searched: [...searched] } },
    );
    this.name = "PostgresNotInstalledError";
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function pairIn(dir: string): { initdb: string; postgres: string } | undefined {
  const initdb = join(dir, "initdb");
  const postgres = join(dir, "postgres");
  return executable(initdb) && executable(postgres) ? { initdb, postgres } : undefined;
}

/**
 * Find the server binaries: `binDir` when given, else the newest `/usr/lib/postgresql/<major>/bin`
 * (Debian keeps them off PATH), else the first PATH directory holding both. Throws
 * {@link PostgresNotInstalledError} when none has them.
 */
export function findPostgresBinaries(
  options: { binDir?: string; root?: string; path?: string } = {},
): PostgresBinaries {
  const searched: string[] = [];
  if (options.binDir !== undefined) {
    searched.push(options.binDir);
    const found = pairIn(options.binDir);
    if (found === undefined) throw new PostgresNotInstalledError(searched);
    return found;
  }
  const root = options.root ?? "/usr/lib/postgresql";
  searched.push(`${root}/*/bin`);
  let majors: number[] = [];
  try {
    majors = readdirSync(root)
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0)
      .sort((a, b) => b - a);
  } catch {
    // no Debian layout: fall through to PATH
  }
  for (const major of majors) {
    const found = pairIn(join(root, String(major), "bin"));
    if (found !== undefined) return { ...found, major };
  }
  searched.push("PATH");
  for (const dir of (options.path ?? process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const found = pairIn(dir);
    if (found !== undefined) return found;
  }
  throw new PostgresNotInstalledError(searched);
}
