/**
 * A Postgres store opened with a password in its URL never prints it (issue 35): the store, its
 * sub-stores and its pool through `JSON.stringify` (or the error a circular driver object throws),
 * `util.inspect` and `String`; a failed open's error and `cause` chain.
 * Integration tier: a throwaway Postgres. Budget: ~5 s.
 */
import { inspect } from "node:util";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PG_SECRET = "pg-password-4d5e6f7a8b";

function printed(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    json = String(error);
  }
  return [json, inspect(value, { depth: 8 }), String(value)].join("\n");
}

function printedError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 8; depth++) {
    parts.push(String(current), inspect(current, { depth: 8 }), JSON.stringify(current) ?? "");
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join("\n");
}

function expectNoSecrets(text: string): void {
  expect(text).not.toContain(PG_SECRET);
}

describe.skipIf(skipPostgres())("a Postgres store opened with a password in its URL", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("prints no password: the store, its sub-stores and its pool", async () => {
    // Trust auth accepts any password: the URL carries one as a real deployment's would.
    const url = pg.url.replace("postgres@", `postgres:${PG_SECRET}@`);
    const store = await PostgresStore.open({ url, schema: "t_secrets" });
    try {
      for (const value of [store, store.keyValue, store.appendLog, store.statusStore, store.pool]) {
        expectNoSecrets(printed(value));
      }
      expect(JSON.stringify(store)).toContain("t_secrets");
    } finally {
      await store.close();
    }
  });

  it("a failed open: no password in the error or its cause chain", async () => {
    const error = await PostgresStore.open(`postgres://postgres:${PG_SECRET}@127.0.0.1:9/none`).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeDefined();
    expectNoSecrets(printedError(error));
  });
});
