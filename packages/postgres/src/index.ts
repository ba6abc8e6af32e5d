/**
 * @tinyagents/postgres — PostgreSQL stores so many workers, the CLI and a UI share one database:
 * key-value with atomic claims (checkpoints, paused runs), event journals and other append logs,
 * run status with liveness and `reapStale`, and a response cache, behind one `PostgresStore`.
 * A throwaway local Postgres for tests lives at `@tinyagents/postgres/testing`.
 */
export { PostgresAppendLog } from "./postgres-append-log.js";
export { PostgresKeyValueStore } from "./postgres-key-value-store.js";
export { PostgresResponseCache } from "./postgres-response-cache.js";
export { DEFAULT_POSTGRES_SCHEMA, POSTGRES_SCHEMA_VERSION } from "./postgres-schema.js";
export { PostgresHarnessStatusStore } from "./postgres-status-store.js";
export { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
