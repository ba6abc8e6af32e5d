import { createRequire } from "node:module";
import { TinyAgentsError, validationError } from "@tinyagents/inference";
import { type BetterSqlite3Module, betterSqlite3Driver } from "./drivers/better-sqlite3.js";
import { type BunSqliteModule, bunSqliteDriver } from "./drivers/bun-sqlite.js";
import { type NodeSqliteModule, nodeSqliteDriver } from "./drivers/node-sqlite.js";
import type { SqliteDriver, SqliteDriverName } from "./drivers/sqlite-driver.js";

/** Which SQLite to use: `"auto"` (the default) picks the runtime's own, see `SqliteOpenOptions.driver`. */
export type SqliteDriverChoice = "auto" | SqliteDriverName;

const CHOICES: readonly SqliteDriverChoice[] = ["auto", "node:sqlite", "bun:sqlite", "better-sqlite3"];

/** What driver selection needs from the runtime (injectable for tests). */
export interface SqliteRuntime {
  /** Bun's version under Bun, else `undefined`. */
  readonly bun: string | undefined;
  /** Node's version (Bun reports the Node version it implements). */
  readonly node: string;
  /** Node's ABI number (`process.versions.modules`), named in native-load errors. */
  readonly abi: string | undefined;
  /** `node:sqlite`, or `undefined` when this runtime has none (Node < 22.13 without a flag). */
  loadNodeSqlite(): NodeSqliteModule | undefined;
  /** `require()` relative to this package (for `bun:sqlite` and `better-sqlite3`). */
  require(id: string): unknown;
}

/**
 * Pick the SQLite driver: `choice` if given, else `TINYAGENTS_SQLITE_DRIVER`, else `"auto"`:
 * `bun:sqlite` under Bun; `node:sqlite` where Node has it without a flag (22.13+; on 22.5-22.12
 * it needs `--experimental-sqlite`, and is used when that flag is on); otherwise the
 * `better-sqlite3` package (Node 20). Throws a `storage` error that names the cause and the fix
 * when the chosen driver cannot load (`validation` for an unknown choice).
 */
export function selectSqliteDriver(
  choice: SqliteDriverChoice | undefined = undefined,
  runtime: SqliteRuntime = currentRuntime(),
): SqliteDriver {
  const env = globalThis.process?.env?.TINYAGENTS_SQLITE_DRIVER;
  const wanted = choice ?? (env === undefined || env === "" ? "auto" : env);
  if (!(CHOICES as readonly string[]).includes(wanted)) {
    throw validationError(
      `unknown SQLite driver "${wanted}"${choice === undefined ? " (TINYAGENTS_SQLITE_DRIVER)" : ""}; ` +
        `use one of ${CHOICES.map((c) => `"${c}"`).join(", ")}`,
      { field: "driver" },
    );
  }
  const pick = wanted as SqliteDriverChoice;
  if (pick === "bun:sqlite" || (pick === "auto" && runtime.bun !== undefined)) return loadBun(runtime);
  if (pick === "node:sqlite" || pick === "auto") {
    const sqlite = runtime.loadNodeSqlite();
    if (sqlite !== undefined) return nodeSqliteDriver(sqlite);
    if (pick === "node:sqlite") {
      throw unavailable(
        "node:sqlite",
        `Node ${runtime.node} has no node:sqlite (it needs Node >= 22.13, or 22.5-22.12 with --experimental-sqlite)`,
        'use Node >= 22.13, or driver "better-sqlite3" with `npm install better-sqlite3`',
      );
    }
  }
  return loadBetterSqlite3(runtime);
}

function loadBun(runtime: SqliteRuntime): SqliteDriver {
  if (runtime.bun === undefined) {
    throw unavailable("bun:sqlite", "this is not Bun", 'run under Bun, or use driver "auto"');
  }
  return bunSqliteDriver(runtime.require("bun:sqlite") as BunSqliteModule);
}

function loadBetterSqlite3(runtime: SqliteRuntime): SqliteDriver {
  let Database: BetterSqlite3Module;
  try {
    Database = runtime.require("better-sqlite3") as BetterSqlite3Module;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") {
      throw unavailable(
        "better-sqlite3",
        `Node ${runtime.node} has no built-in SQLite and the better-sqlite3 package is not installed`,
        "run `npm install better-sqlite3` (version 12), or use Node >= 22.13 (node:sqlite) or Bun (bun:sqlite)",
        error,
      );
    }
    throw nativeLoadError(runtime, error);
  }
  const driver = betterSqlite3Driver(Database);
  return {
    name: driver.name,
    open(filename) {
      // better-sqlite3 loads its native module when the first database opens.
      try {
        return driver.open(filename);
      } catch (error) {
        if (isNativeLoadFailure(error)) throw nativeLoadError(runtime, error);
        throw error;
      }
    },
  };
}

/**
 * Whether `error` is a failed load of a native module (another Node ABI, another platform, a
 * missing or broken `.node` file) rather than a SQLite error (those carry `SQLITE_*` codes).
 */
export function isNativeLoadFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && code.startsWith("SQLITE_")) return false;
  return (
    code === "ERR_DLOPEN_FAILED" ||
    /NODE_MODULE_VERSION|bindings file|better_sqlite3\.node|invalid ELF header|wrong ELF class|dlopen|was compiled against|not yet supported in Bun/i.test(
      error.message,
    )
  );
}

function nativeLoadError(runtime: SqliteRuntime, error: unknown): TinyAgentsError {
  const cause = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ").trim();
  if (runtime.bun !== undefined) {
    return new TinyAgentsError(
      "storage",
      `SQLite: better-sqlite3 does not run under Bun ${runtime.bun} (${cause}). Fix: use Bun's own ` +
        'SQLite: driver "auto" or "bun:sqlite" (unset TINYAGENTS_SQLITE_DRIVER)',
      { cause: error, details: { driver: "better-sqlite3", reason: "native_load_failed" } },
    );
  }
  const where = `Node ${runtime.node}${runtime.abi === undefined ? "" : `, NODE_MODULE_VERSION ${runtime.abi}`}`;
  return new TinyAgentsError(
    "storage",
    `SQLite: better-sqlite3's native module failed to load (${cause}). It was built for another ` +
      `Node.js version or platform than this one (${where}). Fix: run \`npm rebuild better-sqlite3\` ` +
      "with the Node you run tinyagents on; or use Node >= 22.13 or Bun, whose built-in SQLite " +
      "needs no native module",
    { cause: error, details: { driver: "better-sqlite3", reason: "native_load_failed" } },
  );
}

function unavailable(driver: SqliteDriverName, why: string, fix: string, cause?: unknown): TinyAgentsError {
  return new TinyAgentsError("storage", `SQLite driver ${driver} is not available: ${why}; ${fix}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { driver, reason: "driver_unavailable" },
  });
}

/** The runtime this process runs on. */
export function currentRuntime(): SqliteRuntime {
  const proc = globalThis.process as
    | (NodeJS.Process & { getBuiltinModule?: (id: string) => unknown; versions: { bun?: string } })
    | undefined;
  const require = createRequire(typeof __filename === "string" ? __filename : import.meta.url);
  return {
    bun: proc?.versions.bun,
    node: proc?.versions.node ?? "unknown",
    abi: proc?.versions.modules,
    loadNodeSqlite: () => loadNodeSqliteQuietly(proc),
    require,
  };
}

/**
 * `node:sqlite`, loaded without its one-time "SQLite is an experimental feature" warning (Node
 * 22 prints it on stderr on first load; the API the stores use is stable across 22-24). Only that
 * warning is dropped, and only during the load.
 */
export function loadNodeSqliteQuietly(
  proc: (NodeJS.Process & { getBuiltinModule?: (id: string) => unknown }) | undefined,
): NodeSqliteModule | undefined {
  if (proc?.getBuiltinModule === undefined) return undefined;
  const emitWarning = proc.emitWarning;
  proc.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const message = typeof warning === "string" ? warning : warning.message;
    if (message.startsWith("SQLite is an experimental feature")) return;
    (emitWarning as (w: string | Error, ...r: unknown[]) => void).call(proc, warning, ...rest);
  }) as typeof proc.emitWarning;
  try {
    return proc.getBuiltinModule("node:sqlite") as NodeSqliteModule | undefined;
  } catch {
    return undefined;
  } finally {
    proc.emitWarning = emitWarning;
  }
}
