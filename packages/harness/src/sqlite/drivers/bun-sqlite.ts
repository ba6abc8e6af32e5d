import type { SqliteConnection, SqliteDriver, SqliteStatement } from "./sqlite-driver.js";

/** The slice of `bun:sqlite` this driver uses. */
export interface BunSqliteModule {
  Database: new (
    filename: string,
    options?: { create?: boolean; readwrite?: boolean },
  ) => {
    prepare(sql: string): {
      run(...params: unknown[]): { changes: number } | undefined;
      get(...params: unknown[]): unknown;
      all(...params: unknown[]): unknown[];
    };
    exec(sql: string): unknown;
    close(): void;
  };
}

/** The driver over Bun's built-in `bun:sqlite`. */
export function bunSqliteDriver(sqlite: BunSqliteModule): SqliteDriver {
  return {
    name: "bun:sqlite",
    open(filename: string): SqliteConnection {
      const db =
        filename === ":memory:"
          ? new sqlite.Database(filename)
          : new sqlite.Database(filename, { create: true, readwrite: true });
      let open = true;
      return {
        prepare(sql: string): SqliteStatement {
          const statement = db.prepare(sql);
          return {
            run: (...params) => ({ changes: statement.run(...params)?.changes ?? 0 }),
            // bun:sqlite answers `null` for "no row"; the stores expect `undefined`.
            get: (...params) => statement.get(...params) ?? undefined,
            all: (...params) => statement.all(...params),
          };
        },
        exec(sql: string) {
          db.exec(sql);
        },
        close() {
          if (!open) return;
          open = false;
          db.close();
        },
        get isOpen() {
          return open;
        },
      };
    },
  };
}
