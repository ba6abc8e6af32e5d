import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../sqlite/sqlite-store.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { agentPerCase } from "./eval.fixture.js";
import { EvalStore } from "./eval-store.js";
import { evaluate } from "./evaluate.js";
import { exactMatch } from "./scorers/exact-match.js";

describe("EvalStore", () => {
  const dir = mkdtempSync(join(tmpdir(), "eval-store-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("persists results in the SQLite store next to the runs and lists them newest first", async () => {
    const file = join(dir, "tinyagents.db");
    const sqlite = SqliteStore.open(file);
    const store = new EvalStore(sqlite.keyValue);
    const dataset = {
      name: "capitals",
      cases: [{ id: "paris", input: "Capital of France?", expected: "Paris" }],
    };
    const first = await evaluate({
      agent: agentPerCase({ paris: ["Paris"] }),
      dataset,
      scorers: [exactMatch()],
      store,
      evalRunId: "eval-a",
      clock: new DeterministicClock({ start: 2_000 }),
    });
    await evaluate({
      agent: agentPerCase({ paris: ["Lyon"] }),
      dataset,
      scorers: [exactMatch()],
      store,
      evalRunId: "eval-b",
      clock: new DeterministicClock({ start: 5_000 }),
    });
    sqlite.close();

    const reopened = SqliteStore.open(file);
    try {
      const again = new EvalStore(reopened.keyValue);
      expect(await again.get("eval-a")).toEqual(first);
      const list = await again.list();
      expect(list.map((s) => [s.evalRunId, s.passRate])).toEqual(
        list[0]?.evalRunId === "eval-b"
          ? [
              ["eval-b", 0],
              ["eval-a", 1],
            ]
          : [
              ["eval-a", 1],
              ["eval-b", 0],
            ],
      );
      expect(list.find((s) => s.evalRunId === "eval-a")).toMatchObject({
        dataset: "capitals",
        runIds: ["eval-a-c1-r1"],
        status: "completed",
      });
      await expect(again.require("eval-zzz")).rejects.toThrow(
        /no eval run "eval-zzz" in the store; recent: eval-/,
      );
    } finally {
      reopened.close();
    }
  });
});
