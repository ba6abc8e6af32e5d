/**
 * The store conformance suites (`@tinyagents/harness/testkit`) on the in-process backends:
 * memory, and files (FileKeyValueStore, JsonlAppendLog, KeyValueHarnessStatusStore over files).
 * SQLite runs them in sqlite/sqlite-conformance.test.ts, Postgres in packages/postgres.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import { InMemoryResponseCache } from "../cache/in-memory-response-cache.js";
import { InMemoryHarnessStatusStore } from "../observability/in-memory-status-store.js";
import { KeyValueHarnessStatusStore } from "../observability/key-value-status-store.js";
import {
  appendLogConformance,
  claimConformance,
  keyValueStoreConformance,
  responseCacheConformance,
  statusStoreConformance,
} from "../testkit/store-conformance/store-conformance.js";
import { InMemoryAppendLog } from "./append-log.js";
import { FileKeyValueStore } from "./file-key-value-store.js";
import { JsonlAppendLog } from "./jsonl-append-log.js";
import { InMemoryKeyValueStore } from "./key-value-store.js";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tinyagents-conformance-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
function jsonl(dir: string): JsonlAppendLog {
  const log = new JsonlAppendLog(dir);
  cleanup.push(() => log.close());
  return log;
}

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

describe("files", () => {
  const kv = {
    open: async (now: () => number) => {
      const dir = tempDir();
      return {
        store: new FileKeyValueStore(dir, { now }),
        connect: async () => new FileKeyValueStore(dir, { now }),
      };
    },
  };
  describe("FileKeyValueStore", () => {
    for (const c of keyValueStoreConformance(kv)) it(c.name, c.run);
  });
  describe("claims", () => {
    for (const c of claimConformance(kv)) it(c.name, c.run);
  });
  describe("JsonlAppendLog", () => {
    const subject = {
      open: async () => {
        const dir = tempDir();
        return { log: jsonl(dir), connect: async () => jsonl(dir) };
      },
    };
    for (const c of appendLogConformance(subject)) it(c.name, c.run);
  });
  describe("KeyValueHarnessStatusStore over files", () => {
    const subject = {
      open: async (o: { maxFinishedRuns: number }) => ({
        store: new KeyValueHarnessStatusStore(new FileKeyValueStore(tempDir()), o),
      }),
    };
    for (const c of statusStoreConformance(subject)) it(c.name, c.run);
  });
});
