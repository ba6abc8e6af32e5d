import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlAppendLog } from "./jsonl-append-log.js";
import type { StoreWarning } from "./store-warning.js";

let dir: string;
const logs: JsonlAppendLog[] = [];
const warnings: StoreWarning[] = [];
const open = () => {
  const log = new JsonlAppendLog(dir, { onWarning: (w) => warnings.push(w) });
  logs.push(log);
  return log;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-jsonl-"));
  warnings.length = 0;
});
afterEach(async () => {
  await Promise.all(logs.splice(0).map((log) => log.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe("JsonlAppendLog", () => {
  it("appends one JSON line per value and reads windows back by offset", async () => {
    const log = open();
    expect(await log.append("s", { n: 0 })).toBe(0);
    expect(await log.appendMany("s", [{ n: 1 }, "two", [3]])).toEqual([1, 2, 3]);
    expect(await log.length("s")).toBe(4);
    expect(await log.readFrom("s", 1, 2)).toEqual([
      { offset: 1, value: { n: 1 } },
      { offset: 2, value: "two" },
    ]);
    expect(await log.readFrom("s", 10, 5)).toEqual([]);
    expect(await log.length("empty")).toBe(0);
    expect(readFileSync(join(dir, "s.jsonl"), "utf8")).toBe('{"n":0}\n{"n":1}\n"two"\n[3]\n');
    expect(await log.listStreams()).toEqual(["empty", "s"]);
  });

  it("continues offsets after a reopen and never renumbers them", async () => {
    await open().appendMany("s", [1, 2, 3]);
    const again = open();
    expect(await again.append("s", 4)).toBe(3);
    expect((await again.readFrom("s", 0, 10)).map((e) => e.offset)).toEqual([0, 1, 2, 3]);
  });

  it("ignores a torn last line with a warning, then keeps its offset as a skipped corrupt line", async () => {
    await open().appendMany("s", [{ n: 0 }, { n: 1 }]);
    appendFileSync(join(dir, "s.jsonl"), '{"n":2,"pad');
    const log = open();
    expect(await log.length("s")).toBe(2);
    expect((await log.readFrom("s", 0, 10)).map((e) => e.value)).toEqual([{ n: 0 }, { n: 1 }]);
    expect(warnings.map((w) => w.code)).toEqual(["torn_tail"]);
    expect(await log.append("s", { n: 3 })).toBe(3);
    expect(await log.readFrom("s", 0, 10)).toEqual([
      { offset: 0, value: { n: 0 } },
      { offset: 1, value: { n: 1 } },
      { offset: 3, value: { n: 3 } },
    ]);
    expect(warnings.map((w) => w.code)).toEqual(["torn_tail", "corrupt_line"]);
    // A fresh reader agrees on every offset.
    expect((await open().readFrom("s", 0, 10)).map((e) => e.offset)).toEqual([0, 1, 3]);
  });

  // Concurrent appends in one process and two writers sharing a stream: the AppendLog
  // conformance suite (store/store-conformance-files.integration.test.ts) runs them on JSONL files.
  it("refuses a truncated file instead of renumbering", async () => {
    const log = open();
    await log.appendMany("s", [1, 2, 3]);
    truncateSync(join(dir, "s.jsonl"), 2);
    await expect(log.length("s")).rejects.toSatisfy(
      (e) => TinyAgentsError.isInstance(e, "storage") && /shrank/.test(e.message),
    );
  });

  it("skips blank lines and validates names, offsets and values", async () => {
    writeFileSync(join(dir, "s.jsonl"), "1\n\n2\n");
    const log = open();
    expect(await log.readFrom("s", 0, 10)).toEqual([
      { offset: 0, value: 1 },
      { offset: 1, value: 2 },
    ]);
    await expect(log.append("../escape", 1)).rejects.toSatisfy((e) =>
      TinyAgentsError.isInstance(e, "validation"),
    );
    await expect(log.readFrom("s", -1, 1)).rejects.toThrow(/offset/);
    await expect(log.readFrom("s", 0, 0)).rejects.toThrow(/limit/);
    await expect(log.append("s", undefined as never)).rejects.toThrow(/not JSON/);
    expect(await log.appendMany("s", [])).toEqual([]);
  });

  // Linux: /proc/self/fd lists this process's open files.
  it.skipIf(!existsSync("/proc/self/fd"))(
    "close() also closes the file of a call still waiting for its turn",
    async () => {
      const file = join(dir, "s.jsonl");
      const openFds = () =>
        readdirSync("/proc/self/fd").filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`) === file;
          } catch {
            return false; // closed meanwhile (the fd of readdir itself)
          }
        }).length;
      const log = open();
      await log.append("s", 0);
      const first = log.append("s", 1);
      const waiting = log.append("s", 2); // queued behind `first` on the stream's mutex
      await log.close();
      await Promise.all([first, waiting]);
      expect(openFds()).toBe(0);
      expect(readFileSync(file, "utf8")).toBe("0\n1\n2\n");
    },
  );
});
