import type { SqliteDb, SqliteStatement } from "./sqlite-database.js";

/** Entries a cache keeps (beyond this the oldest is read again on use). */
const MAX_ENTRIES = 4096;

/**
 * What a store last wrote on this connection, by key (the append log's stream tails, the status
 * store's rows), so that its next write need not read it back (one indexed read per key per
 * commit: the journal's second-writer check, the status store's stale-write check) while no
 * other connection changed the file.
 *
 * An entry is used only inside the write transaction, after `PRAGMA data_version` — which SQLite
 * moves whenever ANOTHER connection commits (another process, or another store on the same file
 * in this one) and never for this connection's own commits — and the connection's rollback count
 * were found as they were when the entries were made; otherwise every entry is forgotten and the
 * rows are read from the table again. The transaction holds the write lock, so nothing can commit
 * between that check and the write: the check that uses an entry is as strict as the read it
 * replaces. `data_version` is read only when an entry would be used. The store that owns a cache
 * must be the only writer of what it caches on the connection, and forget what it changes by
 * other means (a delete, an eviction).
 */
export class SqliteOwnWrites<V> {
  private readonly entries = new Map<string, V>();
  private readonly db: SqliteDb;
  private readonly dataVersion: SqliteStatement;
  /** `data_version` and the rollback count the entries are valid for (undefined: not read yet). */
  private version: number | undefined;
  private rollbacks = 0;

  constructor(db: SqliteDb) {
    this.db = db;
    this.dataVersion = db.prepare("PRAGMA data_version");
  }

  /** What was written last under `key`, if it is still what is stored (call inside the write transaction). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const version = this.readVersion();
    if (version === this.version && this.db.rollbacks === this.rollbacks) return entry;
    // Another connection committed, or one of ours rolled back: nothing remembered holds.
    this.entries.clear();
    this.version = version;
    this.rollbacks = this.db.rollbacks;
    return undefined;
  }

  /**
   * Remember what this transaction wrote under `key` (call inside the write transaction, after
   * the write; a rollback of it makes the entry unused, see `get`).
   */
  set(key: string, value: V): void {
    if (this.version === undefined) {
      this.version = this.readVersion();
      this.rollbacks = this.db.rollbacks;
    }
    this.entries.delete(key); // re-insert: the map keeps recently written keys last
    this.entries.set(key, value);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Forget `key` (changed by a write that does not remember it). */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Forget everything (a write changed rows it cannot name). */
  clear(): void {
    this.entries.clear();
  }

  private readVersion(): number {
    return Number((this.dataVersion.get() as { data_version: number | bigint }).data_version);
  }
}
