import type { JsonValue } from "@tinyagents/inference";
import type { SqliteDb, SqliteStatement } from "./sqlite-database.js";

/** A stream's last row: its offset in the log, and its value's numeric `offset` field. */
export interface StreamTail {
  readonly offset: number;
  /** The stored value's `offset` field when it is a finite number (what `checkOffset` reads). */
  readonly last: number | undefined;
}

/** Streams whose tail a connection remembers (beyond this the oldest is read again on use). */
const MAX_TAILS = 4096;

/**
 * The last row of the streams this connection appended to, so that a group commit need not read
 * it back (the journal's second-writer check and the next offset: one indexed read per stream
 * per commit) while no other connection changed the file. One per connection, and the only
 * writer of the `log` table on it (the `SqliteAppendLog`).
 *
 * An entry is used only inside the write transaction, after `PRAGMA data_version` — which
 * SQLite moves whenever ANOTHER connection commits (another process, or another store on the same
 * file in this one) and never for this connection's own commits — and the connection's rollback
 * count were found as they were when the entries were made; otherwise every entry is forgotten
 * and the tails are read from the table again. The transaction holds the write lock, so nothing
 * can commit between that check and the insert: the cross-process check is as strict as the
 * read it replaces. `data_version` is read only when an entry would be used, and the log
 * remembers a stream from its second commit on: a run tree's first commit (a new stream, the only
 * one of a 1-step run) costs nothing more.
 */
export class SqliteStreamTails {
  private readonly tails = new Map<string, StreamTail>();
  private readonly db: SqliteDb;
  private readonly dataVersion: SqliteStatement;
  /** `data_version` and the rollback count the entries are valid for (undefined: not read yet). */
  private version: number | undefined;
  private rollbacks = 0;

  constructor(db: SqliteDb) {
    this.db = db;
    this.dataVersion = db.prepare("PRAGMA data_version");
  }

  /** The remembered tail of `stream`, if it is still the stored one (call inside the write transaction). */
  get(stream: string): StreamTail | undefined {
    const tail = this.tails.get(stream);
    if (tail === undefined) return undefined;
    const version = this.readVersion();
    if (version === this.version && this.db.rollbacks === this.rollbacks) return tail;
    // Another connection committed, or one of ours rolled back: nothing remembered holds.
    this.tails.clear();
    this.version = version;
    this.rollbacks = this.db.rollbacks;
    return undefined;
  }

  /**
   * Remember `stream`'s tail after this transaction's insert: row `offset`, holding `value`
   * (call inside the write transaction; a rollback of it makes the entry unused, see `get`).
   */
  set(stream: string, offset: number, value: JsonValue | undefined): void {
    if (this.version === undefined) {
      this.version = this.readVersion();
      this.rollbacks = this.db.rollbacks;
    }
    const field =
      value !== null && typeof value === "object" && !Array.isArray(value) ? value.offset : undefined;
    this.tails.delete(stream); // re-insert: the map keeps recently written streams last
    this.tails.set(stream, { offset, last: Number.isFinite(field) ? (field as number) : undefined });
    if (this.tails.size > MAX_TAILS) this.tails.delete(this.tails.keys().next().value as string);
  }

  /** Forget `stream`'s tail (written by a path that does not remember it). */
  forget(stream: string): void {
    this.tails.delete(stream);
  }

  private readVersion(): number {
    return Number((this.dataVersion.get() as { data_version: number | bigint }).data_version);
  }
}
