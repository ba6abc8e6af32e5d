import type { SqliteDb, SqliteStatement } from "./sqlite-database.js";

/** Entries a cache keeps (beyond this the oldest is read again on use). */
const MAX_ENTRIES = 4096;

/**
 * Whether only this connection changed the file since a point: `epoch()` moves whenever another
 * connection committed (`PRAGMA data_version`, which SQLite moves for every other connection's
 * commit — another process, or another store on the same file in this one — and never for this
 * connection's own) or one of this connection's transactions or savepoints rolled back. Read
 * inside a write transaction (it holds the write lock: nothing can commit before the write that
 * relies on it); `data_version` is read at most once per transaction however many caches ask.
 * One per connection (see {@link changeWatchOf}).
 */
class SqliteChangeWatch {
  private readonly db: SqliteDb;
  private readonly dataVersion: SqliteStatement;
  private version: number | undefined;
  private rollbacks = 0;
  private current = 0;
  /** The transaction (and rollback count) the last check was made in. */
  private checkedIn = -1;

  constructor(db: SqliteDb) {
    this.db = db;
    this.dataVersion = db.prepare("PRAGMA data_version");
  }

  epoch(): number {
    const db = this.db;
    if (db.transactions === this.checkedIn && db.rollbacks === this.rollbacks) return this.current;
    const version = Number((this.dataVersion.get() as { data_version: number | bigint }).data_version);
    if (version !== this.version || db.rollbacks !== this.rollbacks) {
      this.version = version;
      this.rollbacks = db.rollbacks;
      this.current++;
    }
    this.checkedIn = db.transactions;
    return this.current;
  }

  /**
   * The epoch as of the last check, without a read once there was one: entries stamped with it
   * are at worst discarded early (inside a write transaction).
   */
  lastKnown(): number {
    return this.version === undefined ? this.epoch() : this.current;
  }
}

// Derived per-connection state, keyed weakly by the connection: the append log and the status
// store of one `SqliteStore` share one watch (one `data_version` read per commit).
const watches = new WeakMap<SqliteDb, SqliteChangeWatch>();

/** The change watch of `db`'s connection. */
function changeWatchOf(db: SqliteDb): SqliteChangeWatch {
  let watch = watches.get(db);
  if (watch === undefined) {
    watch = new SqliteChangeWatch(db);
    watches.set(db, watch);
  }
  return watch;
}

/**
 * What a store last wrote on this connection, by key (the append log's stream tails, the status
 * store's rows), so that its next write need not read it back (one indexed read per key per
 * commit: the journal's second-writer check, the status store's stale-write check) while no
 * other connection changed the file.
 *
 * An entry is used only inside the write transaction, after the connection's change watch (see
 * `SqliteChangeWatch`: `PRAGMA data_version` and the connection's rollback count) found nothing
 * changed since the entries were made; otherwise every entry is forgotten and the rows are read
 * from the table again. The transaction holds the write lock, so nothing can commit between that
 * check and the write: the check that uses an entry is as strict as the read it replaces. The
 * store that owns a cache must be the only writer of what it caches on the connection, and forget
 * what it changes by other means (a delete, an eviction).
 */
export class SqliteOwnWrites<V> {
  private readonly entries = new Map<string, V>();
  private readonly watch: SqliteChangeWatch;
  /** The watch's epoch the entries are valid for. */
  private epoch = -1;

  constructor(db: SqliteDb) {
    this.watch = changeWatchOf(db);
  }

  /** What was written last under `key`, if it is still what is stored (call inside the write transaction). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const epoch = this.watch.epoch();
    if (epoch === this.epoch) return entry;
    // Another connection committed, or one of ours rolled back: nothing remembered holds.
    this.entries.clear();
    this.epoch = epoch;
    return undefined;
  }

  /**
   * Remember what this transaction wrote under `key` (call inside the write transaction, after
   * the write; a rollback of it makes the entry unused, see `get`).
   */
  set(key: string, value: V): void {
    // Stamped with the epoch of the last check, not read now: if something changed since, the
    // next `get` finds a later epoch and drops this (fresh) entry with the others: safe.
    const epoch = this.watch.lastKnown();
    if (epoch !== this.epoch) {
      this.entries.clear();
      this.epoch = epoch;
    }
    this.entries.delete(key); // re-insert: the map keeps recently written keys last
    this.entries.set(key, value);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Forget `key` (changed by a write that does not remember it). */
  forget(key: string): void {
    this.entries.delete(key);
  }
}
