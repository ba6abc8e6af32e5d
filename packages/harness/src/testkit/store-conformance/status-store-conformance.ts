import { emptyUsageTotals } from "@tinyagents/inference";
import { emptyCost } from "../../cost/cost.js";
import type { HarnessStatusStore } from "../../observability/status-store.js";
import type { HarnessRunStatus } from "../../status/run-status.js";
import { type ConformanceCase, equal, matches, ok, rejects } from "./conformance-check.js";

/** A HarnessStatusStore under test. */
export interface StatusStoreConformanceSubject {
  /** A fresh, EMPTY store that keeps at most `maxFinishedRuns` finished runs. */
  open(options: { maxFinishedRuns: number }): Promise<{ store: HarnessStatusStore }>;
}

/** A status record with defaults (a running agent run started and updated at 0). */
export function conformanceStatus(runId: string, fields: Partial<HarnessRunStatus> = {}): HarnessRunStatus {
  return {
    runId,
    rootRunId: runId,
    component: "agent",
    status: "running",
    phase: "model",
    modelCalls: 0,
    toolCalls: 0,
    activeToolCalls: [],
    usage: emptyUsageTotals(),
    cost: emptyCost(),
    startedAt: 0,
    updatedAt: 0,
    ...fields,
  };
}

const ids = (records: readonly HarnessRunStatus[]) => records.map((r) => r.runId);
const status = conformanceStatus;

/**
 * The HarnessStatusStore contract, as runner-agnostic cases: latest record per run, queries by
 * thread / root run / liveness / limit (ordered by start, then run id), no stale or backwards
 * save, eviction of finished runs only (oldest finished first, exactly `maxFinishedRuns` kept over
 * many saves), `saveMany` when present, and `reapStale` (leases, `abandoned`, final, evictable).
 * Every built-in backend runs it (memory, key-value files, SQLite, Postgres).
 */
export function statusStoreConformance(subject: StatusStoreConformanceSubject): ConformanceCase[] {
  return [
    {
      name: "fencing: a record of a lower epoch never replaces one of a higher epoch; a higher one always does",
      run: async () => {
        const { store } = await subject.open({ maxFinishedRuns: 100 });
        await store.save(status("f", { ownerId: "a", epoch: 1, modelCalls: 1, updatedAt: 10 }));
        await store.save(status("f", { ownerId: "b", epoch: 2, modelCalls: 2, updatedAt: 5 }));
        matches(await store.get("f"), { ownerId: "b", epoch: 2 }, "the new owner's older-clock record wins");
        await store.save(
          status("f", {
            ownerId: "a",
            epoch: 1,
            modelCalls: 9,
            updatedAt: 99,
            status: "failed",
            endedAt: 99,
          }),
        );
        matches(
          await store.get("f"),
          { ownerId: "b", epoch: 2, modelCalls: 2, status: "running" },
          "stale owner refused",
        );
        await store.save(
          status("f", { ownerId: "b", epoch: 2, updatedAt: 20, status: "completed", endedAt: 20 }),
        );
        await store.save(status("f", { ownerId: "c", epoch: 3, updatedAt: 30 }));
        matches(await store.get("f"), { ownerId: "c", epoch: 3, status: "running" }, "a later epoch reopens");
        if (store.saveMany !== undefined) {
          await store.saveMany([status("f", { ownerId: "a", epoch: 1, updatedAt: 999 })]);
          matches(await store.get("f"), { ownerId: "c", epoch: 3 }, "saveMany is fenced too");
        }
      },
    },
    {
      name: "keeps the latest record per run and answers by thread, by root run, active only and limit",
      run: async () => {
        const { store } = await subject.open({ maxFinishedRuns: 100 });
        await store.save(status("p", { threadId: "t1", startedAt: 1 }));
        await store.save(status("c", { rootRunId: "p", parentRunId: "p", threadId: "t1", startedAt: 2 }));
        await store.save(status("q", { threadId: "t2", startedAt: 3 }));
        await store.save(
          status("p", { threadId: "t1", startedAt: 1, updatedAt: 5, status: "completed", endedAt: 5 }),
        );
        equal((await store.get("p"))?.status, "completed", "latest record of p");
        equal(await store.get("nobody"), undefined, "get of an unknown run");
        equal(ids(await store.list({ threadId: "t1" })), ["p", "c"], "by thread");
        equal(ids(await store.list({ rootRunId: "p" })), ["p", "c"], "by root run");
        equal(ids(await store.list({ active: true })), ["c", "q"], "active");
        equal(ids(await store.list({ active: false })), ["p"], "finished");
        equal(ids(await store.list({ limit: 1 })), ["p"], "limit");
        equal(ids(await store.list({ active: true, limit: 1 })), ["c"], "active with a limit");
        equal(ids(await store.list()), ["p", "c", "q"], "all, by start time");
        equal(
          await store.get("c"),
          status("c", { rootRunId: "p", parentRunId: "p", threadId: "t1", startedAt: 2 }),
          "the whole record",
        );
        await rejects(() => store.list({ limit: -1 }), "validation", "a negative limit");
      },
    },
    {
      name: "pages newest first by a (start, run id) cursor, roots only when asked",
      run: async () => {
        const { store } = await subject.open({ maxFinishedRuns: 100 });
        // Two runs share a start: the run id breaks the tie, so a cursor never skips or repeats one.
        for (const [id, startedAt] of [
          ["a", 1],
          ["b", 2],
          ["c", 2],
          ["d", 3],
          ["e", 4],
        ] as const)
          await store.save(status(id, { startedAt }));
        await store.save(status("e.child", { rootRunId: "e", parentRunId: "e", startedAt: 5 }));
        equal(
          ids(await store.list({ order: "newest" })),
          ["e.child", "e", "d", "c", "b", "a"],
          "newest first",
        );
        equal(
          ids(await store.list({ order: "newest", rootsOnly: true, limit: 2 })),
          ["e", "d"],
          "first page",
        );
        equal(
          ids(
            await store.list({
              order: "newest",
              rootsOnly: true,
              limit: 2,
              after: { startedAt: 3, runId: "d" },
            }),
          ),
          ["c", "b"],
          "second page",
        );
        equal(
          ids(
            await store.list({
              order: "newest",
              rootsOnly: true,
              limit: 2,
              after: { startedAt: 2, runId: "b" },
            }),
          ),
          ["a"],
          "last page",
        );
        equal(
          ids(await store.list({ after: { startedAt: 2, runId: "b" } })),
          ["c", "d", "e", "e.child"],
          "oldest first after",
        );
        await rejects(
          () => store.list({ order: "sideways" as unknown as "newest" }),
          "validation",
          "an unknown order",
        );
      },
    },
    {
      name: "never lets a stale or backwards save win",
      run: async () => {
        const { store } = await subject.open({ maxFinishedRuns: 100 });
        await store.save(status("r", { updatedAt: 10 }));
        await store.save(status("r", { updatedAt: 5, modelCalls: 99 }));
        equal((await store.get("r"))?.modelCalls, 0, "an older record lost");
        await store.save(status("r", { updatedAt: 10, modelCalls: 1 }));
        equal((await store.get("r"))?.modelCalls, 1, "a record of the same time replaces");
        await store.save(status("r", { updatedAt: 20, status: "failed", endedAt: 20 }));
        await store.save(status("r", { updatedAt: 30, status: "running" }));
        equal((await store.get("r"))?.status, "failed", "a finished run never becomes active again");
        equal(ids(await store.list({ active: true })), [], "nothing active");
        equal(await store.delete("r"), true, "delete");
        equal(await store.delete("r"), false, "second delete");
        equal(await store.get("r"), undefined, "gone");
      },
    },
    {
      name: "evicts only finished runs, the first finished first",
      run: async () => {
        const { store } = await subject.open({ maxFinishedRuns: 2 });
        for (let i = 0; i < 5; i++) await store.save(status(`active-${i}`, { startedAt: i }));
        for (let i = 0; i < 4; i++) {
          await store.save(
            status(`done-${i}`, {
              startedAt: 10 + i,
              updatedAt: 10 + i,
              status: "completed",
              endedAt: 10 + i,
            }),
          );
        }
        equal(
          ids(await store.list()),
          ["active-0", "active-1", "active-2", "active-3", "active-4", "done-2", "done-3"],
          "kept runs",
        );
      },
    },
    {
      name: "keeps exactly maxFinishedRuns finished runs over many saves",
      run: async () => {
        const { store } = await subject.open({ maxFinishedRuns: 10 });
        for (let i = 0; i < 300; i++) {
          const id = `f${String(i).padStart(3, "0")}`;
          await store.save(status(id, { startedAt: i, updatedAt: i }));
          await store.save(
            status(id, { status: "completed", startedAt: i, updatedAt: i + 1, endedAt: i + 1 }),
          );
          // Re-saving a finished run (a newer record) is not a new finished run.
          await store.save(
            status(id, { status: "completed", startedAt: i, updatedAt: i + 2, endedAt: i + 1 }),
          );
          if (i % 37 === 0)
            equal(
              (await store.list({ active: false })).length,
              Math.min(i + 1, 10),
              `finished after ${i + 1}`,
            );
        }
        equal(
          ids(await store.list({ active: false })),
          Array.from({ length: 10 }, (_, k) => `f${290 + k}`),
          "kept",
        );
      },
    },
    {
      name: "saveMany applies save's rules to each record",
      run: async () => {
        const { store } = await subject.open({ maxFinishedRuns: 100 });
        if (store.saveMany === undefined) return; // optional group commit
        await store.save(status("done", { updatedAt: 5, status: "completed", endedAt: 5 }));
        await store.saveMany([
          status("a", { startedAt: 1, updatedAt: 1 }),
          status("b", { startedAt: 2, updatedAt: 2 }),
          status("a", { startedAt: 1, updatedAt: 3, modelCalls: 3 }),
          status("done", { updatedAt: 9 }),
        ]);
        equal((await store.get("a"))?.modelCalls, 3, "the later record of a");
        equal((await store.get("done"))?.status, "completed", "a finished run stays finished");
        equal(ids(await store.list({ active: true })), ["a", "b"], "active");
        await store.saveMany([]);
      },
    },
    {
      name: "reapStale marks runs whose lease expired failed/abandoned, returns them, and makes them evictable",
      run: async () => {
        const { store } = await subject.open({ maxFinishedRuns: 3 });
        if (store.reapStale === undefined)
          throw new Error("every built-in status store implements reapStale");
        const now = 100_000;
        const record = (runId: string, fields: Partial<HarnessRunStatus>) =>
          status(runId, {
            phase: "tools",
            modelCalls: 1,
            activeToolCalls: ["c1"],
            startedAt: 1_000,
            updatedAt: 1_000,
            ...fields,
          });
        await store.save(
          record("dead", { ownerId: "w1", heartbeatAt: 40_000, leaseUntil: 70_000, updatedAt: 40_000 }),
        );
        await store.save(
          record("alive", { ownerId: "w2", heartbeatAt: 95_000, leaseUntil: 125_000, updatedAt: 95_000 }),
        );
        await store.save(record("no-lease-old", { updatedAt: 2_000 }));
        await store.save(
          record("done", { status: "completed", phase: "done", endedAt: 3_000, updatedAt: 3_000 }),
        );
        const reaped = await store.reapStale({ olderThanMs: 10_000, now });
        equal(ids(reaped).sort(), ["dead", "no-lease-old"], "reaped runs");
        for (const r of reaped) {
          matches(
            r,
            { status: "failed", phase: "done", activeToolCalls: [], endedAt: now },
            `reaped ${r.runId}`,
          );
          equal(r.error?.code, "abandoned", `error code of ${r.runId}`);
          ok(r.error?.message.includes(r.runId) === true, `the error names ${r.runId}`);
          equal(await store.get(r.runId), r, `stored record of ${r.runId}`);
        }
        matches((await store.get("dead"))?.error?.details, { ownerId: "w1" }, "details of dead");
        equal(ids(await store.list({ active: true })), ["alive"], "still active");
        // A reaped record is final: a late save of the dead run cannot make it running again.
        await store.save(record("dead", { updatedAt: now + 1 }));
        equal((await store.get("dead"))?.status, "failed", "a late heartbeat loses");
        equal(await store.reapStale({ olderThanMs: 10_000, now }), [], "a second reap changes nothing");
        // Evictable: finished runs beyond maxFinishedRuns (3) go, oldest finished first.
        for (const id of ["f1", "f2", "f3"]) {
          await store.save(
            record(id, { status: "completed", phase: "done", endedAt: now + 10, updatedAt: now + 10 }),
          );
        }
        equal(ids(await store.list()).sort(), ["alive", "f1", "f2", "f3"], "after eviction");
        await rejects(
          () => store.reapStale?.({ olderThanMs: -1 }) as Promise<unknown>,
          "validation",
          "olderThanMs -1",
        );
      },
    },
  ];
}
