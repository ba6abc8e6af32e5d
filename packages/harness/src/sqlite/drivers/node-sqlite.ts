import type { SqliteConnection, SqliteDriver, SqliteStatement } from "./sqlite-driver.js";

/** The slice of `node:sqlite` this driver uses. */
export interface NodeSqliteModule {
  DatabaseSync: new (
    filename: string,
  ) => {
    prepare(sql: string): {
      run(...params: unknown[]): { changes: number | bigint };
      get(...params: unknown[]): unknown;
      all(...params: unknown[]): unknown[];
    };
    exec(sql: string): void;
    close(): void;
    readonly isOpen?: boolean;
  };
}

/** The driver over Node's built-in `node:sqlite` (`DatabaseSync`). */
export function nodeSqliteDriver(sqlite: NodeSqliteModule): SqliteDriver {
  return {
    name: "node:sqlite",
    open(filename: string): SqliteConnection {
      const db = new sqlite.DatabaseSync(filename);
      let open = true;
      return {
        prepare(sql: string): SqliteStatement {
          const statement = db.prepare(sql);
          return {
            run: (...params) => ({ changes: Number(statement.run(...params).changes) }),
            get: (...params) => statement.get(...params),
            all: (...params) => statement.all(...params),
          };
        },
        exec: (sql) => db.exec(sql),
        close() {
          if (!open) return;
          open = false;
          db.close();
        },
        get isOpen() {
          return db.isOpen ?? open;
        },
      };
    },
  };
}
