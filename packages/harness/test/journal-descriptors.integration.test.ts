import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { JsonlAppendLog } from "@tinyagents/harness/node";
import { afterEach, describe, expect, it } from "vitest";
import { type Cleanup, tempDirSync } from "./support/temp-dir.js";

const fixture = fileURLToPath(new URL("./fixtures/journal-many-runs.mjs", import.meta.url));
const cleanup: Cleanup = [];
afterEach(() => {
  for (const remove of cleanup.splice(0)) remove();
});

describe("JsonlAppendLog keeps its descriptors bounded", () => {
  it("3,000 concurrent root runs under `ulimit -n 256` lose no journal event (child process)", () => {
    const dir = tempDirSync(cleanup, "ta-fds-");
    const out = execFileSync("bash", ["-c", `ulimit -n 256 && exec node "${fixture}" "${dir}" 3000 3000`], {
      encoding: "utf8",
      timeout: 120_000,
    });
    const result = JSON.parse(out.trim().split("\n").at(-1) as string);
    expect(result.runs).toBe(3000);
    expect(result.emitted).toBeGreaterThan(30_000);
    expect(result.stored).toBe(result.emitted);
    expect(result).toMatchObject({ errors: 0, drops: 0, fdErrors: 0, readErrors: 0, streams: 3000 });
    expect(result.peakLog).toBeLessThanOrEqual(64);
  }, 180_000);

  it("never holds more than maxOpenFiles descriptors, and reopened streams keep their offsets", async () => {
    const dir = tempDirSync(cleanup, "ta-fds-");
    const log = new JsonlAppendLog(dir, { maxOpenFiles: 4 });
    let peak = 0;
    const streams = Array.from({ length: 40 }, (_, i) => `s${i}`);
    await Promise.all(
      streams.map(async (stream) => {
        for (let n = 0; n < 5; n++) {
          expect(await log.append(stream, { n })).toBe(n);
          peak = Math.max(peak, log.openFiles);
        }
      }),
    );
    expect(peak).toBeLessThanOrEqual(4);
    const fds = readdirSync("/proc/self/fd").length;
    for (const stream of streams) {
      expect((await log.readFrom(stream, 0, 10)).map((e) => e.value)).toEqual(
        [0, 1, 2, 3, 4].map((n) => ({ n })),
      );
    }
    expect(readdirSync("/proc/self/fd").length).toBeLessThanOrEqual(fds + 1);
    await log.close();
    expect(log.openFiles).toBe(0);
  });

  it("per_call handles close every descriptor after each call; bad options are validation errors", async () => {
    const dir = tempDirSync(cleanup, "ta-fds-");
    const log = new JsonlAppendLog(dir, { handles: "per_call" });
    await log.append("a", 1);
    await log.append("b", 2);
    expect(log.openFiles).toBe(0);
    expect(await log.length("a")).toBe(1);
    expect(() => new JsonlAppendLog(dir, { maxOpenFiles: 0 })).toThrow(/maxOpenFiles/);
    expect(() => new JsonlAppendLog(dir, { handles: "x" as never })).toThrow(/handles/);
  });
});
