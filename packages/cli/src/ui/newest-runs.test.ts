import { type HarnessStatusStore, InMemoryHarnessStatusStore } from "@tinyagents/harness";
import { conformanceStatus } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";
import { newestRuns } from "./newest-runs.js";

async function store(): Promise<InMemoryHarnessStatusStore> {
  const s = new InMemoryHarnessStatusStore();
  for (const [id, startedAt] of [
    ["a", 1],
    ["b", 2],
    ["c", 2],
    ["d", 3],
  ] as const)
    await s.save(conformanceStatus(id, { startedAt }));
  await s.save(conformanceStatus("d.child", { rootRunId: "d", parentRunId: "d", startedAt: 4 }));
  return s;
}

/** A store written before the newest-first options: it ignores them (oldest first, everything). */
function legacy(inner: HarnessStatusStore): HarnessStatusStore {
  return {
    save: (s) => inner.save(s),
    get: (id) => inner.get(id),
    delete: (id) => inner.delete(id),
    list: (q) => inner.list(q?.threadId === undefined ? {} : { threadId: q.threadId }),
  };
}

describe("newestRuns: a page of root runs, newest first, by cursor", () => {
  it("from a store that answers the options, and the same from one that ignores them", async () => {
    for (const s of [await store(), legacy(await store())]) {
      const ids = async (after?: { startedAt: number; runId: string }) =>
        (await newestRuns(s, { limit: 2, ...(after === undefined ? {} : { after }) })).map((r) => r.runId);
      expect(await ids()).toEqual(["d", "c"]);
      expect(await ids({ startedAt: 2, runId: "c" })).toEqual(["b", "a"]);
      expect(await ids({ startedAt: 1, runId: "a" })).toEqual([]);
    }
  });
});
