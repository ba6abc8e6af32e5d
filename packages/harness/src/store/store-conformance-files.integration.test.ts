/**
 * The store conformance suites (`@tinyagents/harness/testkit`) on the file backends:
 * FileKeyValueStore, JsonlAppendLog and KeyValueHarnessStatusStore over files, in temp
 * directories. Integration tier: real disk I/O, about 5 s (900 status saves over files in one case).
 * The in-memory backends run them in store-conformance.test.ts.
 */
import { afterEach, describe, it } from "vitest";
import { tempDirSync } from "../../test/support/temp-dir.js";
import { KeyValueHarnessStatusStore } from "../observability/key-value-status-store.js";
import {
  appendLogConformance,
  claimConformance,
  keyValueStoreConformance,
  statusStoreConformance,
} from "../testkit/store-conformance/store-conformance.js";
import { FileKeyValueStore } from "./file-key-value-store.js";
import { JsonlAppendLog } from "./jsonl-append-log.js";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});
function jsonl(dir: string): JsonlAppendLog {
  const log = new JsonlAppendLog(dir);
  cleanup.push(() => log.close());
  return log;
}

describe("files", () => {
  const kv = {
    open: async (now: () => number) => {
      const dir = tempDirSync(cleanup, "tinyagents-conformance-");
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
        const dir = tempDirSync(cleanup, "tinyagents-conformance-");
        return { log: jsonl(dir), connect: async () => jsonl(dir) };
      },
    };
    for (const c of appendLogConformance(subject)) it(c.name, c.run);
  });
  describe("KeyValueHarnessStatusStore over files", () => {
    const subject = {
      open: async (o: { maxFinishedRuns: number }) => ({
        store: new KeyValueHarnessStatusStore(
          new FileKeyValueStore(tempDirSync(cleanup, "tinyagents-conformance-")),
          o,
        ),
      }),
    };
    for (const c of statusStoreConformance(subject)) it(c.name, c.run);
  });
});
