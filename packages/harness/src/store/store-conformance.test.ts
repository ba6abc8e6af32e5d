/**
 * The store conformance suites (`@tinyagents/harness/testkit`) on the in-memory backends. The file
 * backends (FileKeyValueStore, JsonlAppendLog, KeyValueHarnessStatusStore over files) run them in
 * store-conformance-files.integration.test.ts (seconds of real disk I/O), SQLite in
 * sqlite/sqlite-conformance.test.ts, Postgres in packages/postgres.
 */
import { describe, it } from "vitest";
import { InMemoryResponseCache } from "../cache/in-memory-response-cache.js";
import { InMemoryHarnessStatusStore } from "../observability/in-memory-status-store.js";
import {
  appendLogConformance,
  claimConformance,
  keyValueStoreConformance,
  responseCacheConformance,
  statusStoreConformance,
} from "../testkit/store-conformance/store-conformance.js";
import { InMemoryAppendLog } from "./append-log.js";
import { InMemoryKeyValueStore } from "./key-value-store.js";

describe("in memory", () => {
  const kv = { open: async (now: () => number) => ({ store: new InMemoryKeyValueStore({ now }) }) };
  describe("KeyValueStore", () => {
    for (const c of keyValueStoreConformance(kv)) it(c.name, c.run);
  });
  describe("claims", () => {
    for (const c of claimConformance(kv)) it(c.name, c.run);
  });
  describe("AppendLog", () => {
    for (const c of appendLogConformance({ open: async () => ({ log: new InMemoryAppendLog() }) }))
      it(c.name, c.run);
  });
  describe("HarnessStatusStore", () => {
    const subject = {
      open: async (o: { maxFinishedRuns: number }) => ({ store: new InMemoryHarnessStatusStore(o) }),
    };
    for (const c of statusStoreConformance(subject)) it(c.name, c.run);
  });
  describe("ResponseCache", () => {
    const subject = { open: async (now: () => number) => ({ cache: new InMemoryResponseCache({ now }) }) };
    for (const c of responseCacheConformance(subject)) it(c.name, c.run);
  });
});
