import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { InMemoryHarnessStatusStore } from "../observability/in-memory-status-store.js";
import { agentPerCase } from "./eval.fixture.js";
import { evaluate } from "./evaluate.js";
import { exactMatch } from "./scorers/exact-match.js";

// Issue 37 item 9 for evals: a run whose status could not be saved says so on its trial.
describe("evaluate with a status store that cannot be written", () => {
  it("records the storage error on each trial instead of dropping it", async () => {
    const statusStore = new InMemoryHarnessStatusStore();
    const full = async () => {
      throw new TinyAgentsError("storage", "SQLite: could not save the status in /data/t.db (SQLITE_FULL)");
    };
    Object.assign(statusStore, { save: full, saveMany: full });
    const result = await evaluate({
      agent: agentPerCase({ paris: ["Paris"] }),
      dataset: [{ id: "paris", input: "Capital of France?", expected: "Paris" }],
      scorers: [exactMatch()],
      statusStore,
    });
    expect(result.trials[0]?.storageError).toEqual({
      code: "storage",
      message: "SQLite: could not save the status in /data/t.db (SQLITE_FULL)",
    });
    expect(result.trials[0]?.passed).toBe(true); // the verdict stands; the record says it was not saved
  });

  it("a healthy store leaves no storageError", async () => {
    const result = await evaluate({
      agent: agentPerCase({ paris: ["Paris"] }),
      dataset: [{ id: "paris", input: "Capital of France?", expected: "Paris" }],
      scorers: [exactMatch()],
      statusStore: new InMemoryHarnessStatusStore(),
    });
    expect(result.trials[0]).not.toHaveProperty("storageError");
  });
});
