/**
 * The store conformance suites (`@tinyagents/harness/testkit`) on SQLite, once per driver this
 * runtime has; `connect` opens a second connection to the same file (as a second process would).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import {
  appendLogConformance,
  claimConformance,
  keyValueStoreConformance,
  responseCacheConformance,
  statusStoreConformance,
} from "../testkit/store-conformance/store-conformance.js";
import type { SqliteDriverName } from "./drivers/sqlite-driver.js";
import { availableSqliteDrivers } from "./sqlite-drivers.fixture.js";
import { SqliteStore, type SqliteStoreOptions } from "./sqlite-store.js";

const cleanup: (() => unknown)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});

describe.each(availableSqliteDrivers())("SQLite on %s", (driver: SqliteDriverName) => {
  /** A fresh file; `connect` opens it again. */
  const database = (options: SqliteStoreOptions = {}) => {
    const dir = mkdtempSync(join(tmpdir(), "tinyagents-sqlite-conformance-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const connect = () => {
      const store = SqliteStore.open(join(dir, "db.sqlite"), { driver, ...options });
      cleanup.push(() => store.close());
      return store;
    };
    return { store: connect(), connect };
  };
  const kv = {
    open: async (now: () => number) => {
      const { store, connect } = database({ now });
      return { store: store.keyValue, connect: async () => connect().keyValue };
    },
  };

  describe("SqliteKeyValueStore", () => {
    for (const c of keyValueStoreConformance(kv)) it(c.name, c.run);
  });
  describe("claims", () => {
    for (const c of claimConformance(kv)) it(c.name, c.run);
  });
  describe("SqliteAppendLog", () => {
    const subject = {
      open: async () => {
        const { store, connect } = database();
        return { log: store.appendLog, connect: async () => connect().appendLog };
      },
    };
    for (const c of appendLogConformance(subject)) it(c.name, c.run);
  });
  describe("SqliteHarnessStatusStore", () => {
    const subject = {
      open: async (o: { maxFinishedRuns: number }) => ({ store: database(o).store.statusStore }),
    };
    for (const c of statusStoreConformance(subject)) it(c.name, c.run);
  });
  describe("SqliteResponseCache", () => {
    const subject = { open: async (now: () => number) => ({ cache: database({ now }).store.responseCache }) };
    for (const c of responseCacheConformance(subject)) it(c.name, c.run);
  });
});
