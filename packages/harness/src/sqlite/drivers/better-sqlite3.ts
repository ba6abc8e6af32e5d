import type { SqliteConnection, SqliteDriver, SqliteStatement } from "./sqlite-driver.js";

/** The slice of the `better-sqlite3` package this driver uses. */
export type BetterSqlite3Module = new (
  filename: string,
) => {
  prepare(sql: string): {
    run(...params: unknown[]): { changes: number };
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
  };
  exec(sql: string): unknown;
  close(): unknown;
  readonly open: boolean;
};

/** The driver over the `better-sqlite3` package (a native module; the Node 20 default). */
export function betterSqlite3Driver(Database: BetterSqlite3Module): SqliteDriver {
  return {
    name: "better-sqlite3",
    open(filename: string): SqliteConnection {
      const db = new Database(filename);
      return {
        prepare(sql: string): SqliteStatement {
          const statement = db.prepare(sql);
          // Bound, not wrapped in rest/spread arrow functions: no argument array per call.
          return {
            run: statement.run.bind(statement),
            get: statement.get.bind(statement),
            all: statement.all.bind(statement),
          };
        },
        exec(sql: string) {
          db.exec(sql);
        },
        close() {
          if (db.open) db.close();
        },
        get isOpen() {
          return db.open;
        },
      };
    },
  };
}
