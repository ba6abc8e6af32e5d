import { TinyAgentsError } from "@tinyagents/inference";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { pgDatabase, postgresError } from "./postgres-errors.js";

// Issue 37: a Postgres driver failure is a `storage` error that names the operation, the table and
// the database (never the password), says what to do, and whether the write may be retried.
// The classes a test server cannot produce on demand (a full disk, a serialization failure, a
// corrupt page) are driver errors built here with their SQLSTATE; the rest run against a real
// server in test/postgres-store.integration.test.ts.

const driverError = (code: string, message: string) => Object.assign(new Error(message), { code });
const target = { table: '"tinyagents"."log"', database: "app@db.internal:5432" };

describe("postgresError", () => {
  it.each([
    ["53100", "could not extend file", /disk is full; free space/, false],
    ["40001", "could not serialize access", /serialization failure.*retry/, true],
    ["40P01", "deadlock detected", /deadlock/, true],
    ["25006", "cannot execute INSERT in a read-only transaction", /read-only.*primary/, false],
    ["08006", "connection failure", /connection broke/, true],
    ["08P01", "protocol violation", /connection failed/, true], // class 08 without its own hint
    ["53400", "configuration limit exceeded", /lacks a resource/, false], // class 53
    ["XX001", "invalid page in block 7", /damaged data page/, false],
    ["57014", "canceling statement due to statement timeout", /statement_timeout/, false],
    ["ECONNRESET", "read ECONNRESET", /connection was reset/, true],
  ])(
    "%s: storage, the operation, table and database, what to do, retryable %s",
    (code, message, hint, retryable) => {
      const error = postgresError('append to stream "run-1"', driverError(code, message), target);
      expect(error).toBeInstanceOf(TinyAgentsError);
      expect(error.code).toBe("storage");
      expect(error.message).toContain(
        `could not append to stream "run-1" on table "tinyagents"."log" in database app@db.internal:5432 (${code})`,
      );
      expect(error.message).toMatch(hint);
      expect(error.details).toEqual({
        action: 'append to stream "run-1"',
        table: '"tinyagents"."log"',
        database: "app@db.internal:5432",
        pgCode: code,
        retryable,
      });
    },
  );

  it("an error without a code still names the operation and target", () => {
    const error = postgresError("read a key", new Error("boom"), { database: "app@h:1" });
    expect(error.message).toBe("Postgres: could not read a key in database app@h:1: boom; see the cause");
    expect(error.details).toEqual({ action: "read a key", database: "app@h:1", retryable: false });
  });

  it("the database of a pool comes from its URL or options, never with the password", () => {
    const fromUrl = {
      options: { connectionString: "postgres://ops:hunter2-secret@db.internal:6432/billing" },
    };
    expect(pgDatabase(fromUrl as unknown as pg.Pool)).toBe("billing@db.internal:6432");
    const fromOptions = { options: { database: "app", host: "10.0.0.5", port: 5433, password: "hunter2" } };
    expect(pgDatabase(fromOptions as unknown as pg.Pool)).toBe("app@10.0.0.5:5433");
  });
});
