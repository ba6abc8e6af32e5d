import { afterEach, describe, expect, it, vi } from "vitest";
import { thrownError } from "../../test/support/thrown.js";
import type { BetterSqlite3Module } from "./drivers/better-sqlite3.js";
import {
  currentRuntime,
  loadNodeSqliteQuietly,
  type SqliteRuntime,
  selectSqliteDriver,
} from "./select-driver.js";
import { availableSqliteDrivers, nodeHasBuiltinSqlite } from "./sqlite-drivers.fixture.js";

/** A fake SQLite library: every database it opens records the SQL it was given. */
class FakeDatabase {
  static opened: string[] = [];
  readonly open = true;
  readonly isOpen = true;
  constructor(readonly filename: string) {
    FakeDatabase.opened.push(filename);
  }
  prepare() {
    return { run: () => ({ changes: 0 }), get: () => null, all: () => [] };
  }
  exec() {}
  close() {}
}

const runtime = (overrides: Partial<SqliteRuntime>): SqliteRuntime => ({
  bun: undefined,
  node: "20.20.2",
  abi: "115",
  loadNodeSqlite: () => undefined,
  require: (id) => {
    if (id === "better-sqlite3") return FakeDatabase;
    if (id === "bun:sqlite") return { Database: FakeDatabase };
    throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
  },
  ...overrides,
});

const nodeSqlite = { DatabaseSync: FakeDatabase };

afterEach(() => {
  vi.unstubAllEnvs();
  FakeDatabase.opened = [];
});

describe("SQLite driver selection", () => {
  it("auto: bun:sqlite under Bun, node:sqlite where Node has it, better-sqlite3 otherwise", () => {
    const bun = selectSqliteDriver("auto", runtime({ bun: "1.4.5", loadNodeSqlite: () => nodeSqlite }));
    expect(bun.name).toBe("bun:sqlite");
    bun.open("/tmp/x.sqlite");
    expect(FakeDatabase.opened).toEqual(["/tmp/x.sqlite"]);
    expect(
      selectSqliteDriver("auto", runtime({ node: "22.23.3", loadNodeSqlite: () => nodeSqlite })).name,
    ).toBe("node:sqlite");
    expect(selectSqliteDriver(undefined, runtime({})).name).toBe("better-sqlite3");
  });

  it("an explicit choice or TINYAGENTS_SQLITE_DRIVER wins over auto", () => {
    const node22 = runtime({ node: "22.23.3", loadNodeSqlite: () => nodeSqlite });
    expect(selectSqliteDriver("better-sqlite3", node22).name).toBe("better-sqlite3");
    vi.stubEnv("TINYAGENTS_SQLITE_DRIVER", "better-sqlite3");
    expect(selectSqliteDriver(undefined, node22).name).toBe("better-sqlite3");
    expect(selectSqliteDriver("node:sqlite", node22).name).toBe("node:sqlite");
  });

  it("rejects an unknown choice with a validation error listing the valid ones", () => {
    vi.stubEnv("TINYAGENTS_SQLITE_DRIVER", "sqlite3");
    const error = thrownError(() => selectSqliteDriver(undefined, runtime({})));
    expect(error.code).toBe("validation");
    expect(error.message).toContain('unknown SQLite driver "sqlite3" (TINYAGENTS_SQLITE_DRIVER)');
    expect(error.message).toContain('"better-sqlite3"');
  });

  it("a driver the runtime lacks says why and what to do", () => {
    const noNodeSqlite = thrownError(() => selectSqliteDriver("node:sqlite", runtime({})));
    expect(noNodeSqlite.code).toBe("storage");
    expect(noNodeSqlite.message).toContain("Node 20.20.2 has no node:sqlite");
    expect(noNodeSqlite.message).toContain("Node >= 22.13");
    const notBun = thrownError(() => selectSqliteDriver("bun:sqlite", runtime({})));
    expect(notBun.message).toContain("this is not Bun");
  });

  it("better-sqlite3 not installed: names the missing package and the install command", () => {
    const missing = runtime({
      require: () => {
        throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: "MODULE_NOT_FOUND" });
      },
    });
    const error = thrownError(() => selectSqliteDriver(undefined, missing));
    expect(error.code).toBe("storage");
    expect(error.message).toContain("the better-sqlite3 package is not installed");
    expect(error.message).toContain("npm install better-sqlite3");
    expect(error.details).toMatchObject({ driver: "better-sqlite3", reason: "driver_unavailable" });
  });

  it("a failed native load names the real cause and `npm rebuild better-sqlite3`, not the file path", () => {
    const dlopen = Object.assign(
      new Error(
        "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n" +
          "was compiled against a different Node.js version using\nNODE_MODULE_VERSION 127. This version of " +
          "Node.js requires\nNODE_MODULE_VERSION 115. Please try re-compiling or re-installing",
      ),
      { code: "ERR_DLOPEN_FAILED" },
    );
    // better-sqlite3 loads its addon when the first database opens: the constructor throws.
    const Broken = class {
      constructor() {
        throw dlopen;
      }
    } as unknown as BetterSqlite3Module;
    const driver = selectSqliteDriver("better-sqlite3", runtime({ require: () => Broken }));
    const error = thrownError(() => driver.open("/data/runs.sqlite"));
    expect(error.code).toBe("storage");
    expect(error.message).toContain("better-sqlite3's native module failed to load");
    expect(error.message).toContain("was compiled against a different Node.js version");
    expect(error.message).toContain("Node 20.20.2, NODE_MODULE_VERSION 115");
    expect(error.message).toContain("npm rebuild better-sqlite3");
    expect(error.message).not.toContain("file path");
    expect(error.cause).toBe(dlopen);
    expect(error.details).toMatchObject({ reason: "native_load_failed" });
  });

  it("better-sqlite3 under Bun points to bun:sqlite, not to a rebuild", () => {
    const unsupported = new Error("'better-sqlite3' is not yet supported in Bun.");
    const Broken = class {
      constructor() {
        throw unsupported;
      }
    } as unknown as BetterSqlite3Module;
    const bun = runtime({ bun: "1.4.5", require: () => Broken });
    const error = thrownError(() => selectSqliteDriver("better-sqlite3", bun).open("/data/runs.sqlite"));
    expect(error.message).toContain("better-sqlite3 does not run under Bun 1.4.5");
    expect(error.message).toContain('"bun:sqlite"');
    expect(error.message).not.toContain("npm rebuild");
  });

  it("loads node:sqlite without its experimental warning, and lets other warnings through", () => {
    const seen: string[] = [];
    const emitWarning = (warning: string | Error) => {
      seen.push(typeof warning === "string" ? warning : warning.message);
    };
    const proc: {
      emitWarning: (warning: string | Error, type?: string) => void;
      getBuiltinModule(id: string): unknown;
    } = {
      emitWarning,
      getBuiltinModule(id: string) {
        // As Node 22 does on the first load of node:sqlite (through the public process.emitWarning).
        proc.emitWarning(
          "SQLite is an experimental feature and might change at any time",
          "ExperimentalWarning",
        );
        proc.emitWarning("something else", "Warning");
        return id === "node:sqlite" ? nodeSqlite : undefined;
      },
    };
    expect(loadNodeSqliteQuietly(proc as unknown as Parameters<typeof loadNodeSqliteQuietly>[0])).toBe(
      nodeSqlite,
    );
    expect(seen).toEqual(["something else"]);
    expect(proc.emitWarning).toBe(emitWarning);
  });

  it("on this runtime: auto picks node:sqlite exactly when Node has it built in", () => {
    const picked = selectSqliteDriver("auto", currentRuntime()).name;
    expect(picked).toBe(nodeHasBuiltinSqlite() ? "node:sqlite" : "better-sqlite3");
    expect(availableSqliteDrivers()).toContain(picked);
  });
});
