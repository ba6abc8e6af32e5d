/**
 * The one small interface the SQLite stores use, so they run on whichever SQLite the runtime
 * has: `node:sqlite` (Node >= 22.13), `bun:sqlite` (Bun), or the `better-sqlite3` package
 * (Node 20). Each driver adapts its library to this shape; transactions and pragmas are built on
 * top of it once (see `SqliteDb`), the same on every driver.
 */

/** Which SQLite library backs a connection. */
export type SqliteDriverName = "node:sqlite" | "bun:sqlite" | "better-sqlite3";

/** A prepared statement with positional (`?`) parameters. */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  /** The first row, or `undefined` when there is none. */
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** An open database connection. */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  /** Run one or more statements that return nothing. */
  exec(sql: string): void;
  close(): void;
  readonly isOpen: boolean;
}

/** Opens connections with one SQLite library. */
export interface SqliteDriver {
  readonly name: SqliteDriverName;
  /** Open (creating if needed) `filename`; `":memory:"` for a private in-memory database. */
  open(filename: string): SqliteConnection;
}
