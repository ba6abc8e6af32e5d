/**
 * @tinyagents/harness/sqlite — the embedded SQLite backend. It runs on the runtime's own SQLite
 * (`node:sqlite` on Node >= 22.13, `bun:sqlite` under Bun) or, on Node 20, on the optional peer
 * `better-sqlite3` 12. Kept out of the core entry point so the core never loads a native module.
 */

export type { SqliteDriverName } from "./drivers/sqlite-driver.js";
export type { SqliteDriverChoice } from "./select-driver.js";
export { SqliteAppendLog } from "./sqlite-append-log.js";
export { SQLITE_SCHEMA_VERSION, type SqliteOpenOptions } from "./sqlite-database.js";
export { SqliteKeyValueStore } from "./sqlite-key-value-store.js";
export { SqliteResponseCache } from "./sqlite-response-cache.js";
export { SqliteHarnessStatusStore } from "./sqlite-status-store.js";
export { SqliteStore, type SqliteStoreOptions } from "./sqlite-store.js";
