/**
 * @tinyagents/harness/sqlite — the embedded SQLite backend (optional peer: better-sqlite3 12).
 * Kept out of the core entry point so the core never loads a native module.
 */
export { SqliteAppendLog } from "./sqlite-append-log.js";
export { SQLITE_SCHEMA_VERSION, type SqliteOpenOptions } from "./sqlite-database.js";
export { SqliteKeyValueStore } from "./sqlite-key-value-store.js";
export { SqliteResponseCache } from "./sqlite-response-cache.js";
export { SqliteHarnessStatusStore } from "./sqlite-status-store.js";
export { SqliteStore, type SqliteStoreOptions } from "./sqlite-store.js";
