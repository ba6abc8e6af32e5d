import type { SqliteDriverName } from "./drivers/sqlite-driver.js";
import { selectSqliteDriver } from "./select-driver.js";

/** The SQLite drivers that open a database on this runtime (tests run their suites once per driver). */
export function availableSqliteDrivers(): SqliteDriverName[] {
  const names: SqliteDriverName[] = ["better-sqlite3", "node:sqlite", "bun:sqlite"];
  return names.filter((name) => {
    try {
      selectSqliteDriver(name).open(":memory:").close();
      return true;
    } catch {
      return false;
    }
  });
}

/** Whether this Node has `node:sqlite` without a flag (22.13+, 23.4+). */
export function nodeHasBuiltinSqlite(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
}
