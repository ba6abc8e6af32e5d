/**
 * The runs list over 100,000 runs in SQLite (issue 39 #10, "big stores"): a page comes from the
 * status store's (start, run id) index — newest first, by cursor — never from loading every run.
 * Seeding 100,000 status records takes about 5 s; the reads well under 1 s each. Budget: 30 s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppendLogEventJournal, type HarnessRunStatus } from "@tinyagents/harness";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { conformanceStatus } from "@tinyagents/harness/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../../../../scripts/build/bundle-web-app.mjs";
import { type InspectorServer, serveInspector } from "./inspector-server.js";
import type { DashboardView, RunListPage } from "./view-types.js";

const RUNS = 100_000;
const TOKEN = "scale-test-token-0123456789";
const T0 = Date.UTC(2026, 0, 1);
let dir: string;
let store: SqliteStore;
let server: InspectorServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspector-scale-"));
  const assetsDir = join(dir, "assets");
  await buildWebApp(join(import.meta.dirname, "../../ui-app"), assetsDir);
  store = SqliteStore.open(join(dir, "t.db"), { maxFinishedRuns: 2 * RUNS });
  const batch: HarnessRunStatus[] = [];
  for (let i = 0; i < RUNS; i++) {
    // One run a minute; every 10th failed, every 4th an eval trial; a sub-agent run now and then.
    const startedAt = T0 + i * 60_000;
    const eval_ = i % 4 === 0;
    batch.push(
      conformanceStatus(`run-${String(i).padStart(6, "0")}`, {
        status: i % 10 === 0 ? "failed" : "completed",
        startedAt,
        updatedAt: startedAt + 1000,
        endedAt: startedAt + 1000,
        ...(eval_ ? { tags: ["eval", "eval:e1"] } : {}),
      }),
    );
    if (i % 1000 === 0)
      batch.push(
        conformanceStatus(`child-${i}`, {
          rootRunId: `run-${String(i).padStart(6, "0")}`,
          parentRunId: `run-${String(i).padStart(6, "0")}`,
          status: "completed",
          startedAt: startedAt + 10,
          updatedAt: startedAt + 20,
          endedAt: startedAt + 20,
        }),
      );
    if (batch.length >= 5000) await store.statusStore.saveMany(batch.splice(0));
  }
  await store.statusStore.saveMany(batch.splice(0));
  const journal = new AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" });
  server = await serveInspector({ journal, statusStore: store.statusStore, assetsDir, token: TOKEN });
}, 120_000);

afterAll(async () => {
  await server?.close();
  store?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function page(query: string): Promise<{ body: RunListPage; ms: number }> {
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${server.port}/api/run-list?${query}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = (await res.json()) as RunListPage;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { body, ms: performance.now() - t };
}

const id = (i: number) => `run-${String(i).padStart(6, "0")}`;

describe("the runs list over 100,000 runs", () => {
  it("the first page (newest first, eval trials hidden) in under 1 s; the next by cursor, no gap, no repeat", async () => {
    const first = await page("limit=100");
    console.log(`inspector runs list: first page of ${RUNS} runs in ${first.ms.toFixed(0)} ms`);
    expect(first.ms).toBeLessThan(1000);
    const expected = [];
    for (let i = RUNS - 1; expected.length < 100; i--) if (i % 4 !== 0) expected.push(id(i));
    expect(first.body.runs.map((r) => r.runId)).toEqual(expected);
    expect(first.body.hiddenEvalTrials).toBeGreaterThan(0);
    const cursor = first.body.next;
    expect(cursor).toBeDefined();
    const second = await page(`limit=100&after=${cursor?.startedAt}&afterId=${cursor?.runId}`);
    expect(second.ms).toBeLessThan(1000);
    const seen = new Set(first.body.runs.map((r) => r.runId));
    for (const r of second.body.runs) expect(seen.has(r.runId)).toBe(false);
    const lastFirst = Number(first.body.runs.at(-1)?.runId.slice(4));
    const firstSecond = Number(second.body.runs[0]?.runId.slice(4));
    // The next non-eval run below the first page's last one.
    let want = lastFirst - 1;
    while (want % 4 === 0) want--;
    expect(firstSecond).toBe(want);
  });

  it("filters by status and shows eval trials one switch away; sub-agent runs are never rows", async () => {
    const failed = await page("limit=50&status=failed");
    expect(failed.ms).toBeLessThan(1000);
    expect(failed.body.runs).toHaveLength(50);
    expect(failed.body.runs.every((r) => r.status === "failed" && !r.tags.includes("eval"))).toBe(true);
    const withEvals = await page("limit=8&evals=1");
    expect(withEvals.body.runs.map((r) => r.runId)).toEqual(
      Array.from({ length: 8 }, (_, k) => id(RUNS - 1 - k)),
    );
    const deep = await page(`limit=100&evals=1&after=${T0 + 2000 * 60_000 + 11}&afterId=zzz`);
    expect(deep.body.runs.some((r) => r.runId.startsWith("child-"))).toBe(false);
    expect(deep.body.runs[0]?.runId).toBe(id(2000));
  });

  it("the dashboard for the last 30 days of the store in under 1 s: all 43,200 runs of the window", async () => {
    const to = T0 + RUNS * 60_000;
    const t = performance.now();
    const res = await fetch(
      `http://127.0.0.1:${server.port}/api/dashboard?from=${to - 30 * 24 * 3_600_000}&to=${to}`,
      { headers: { authorization: `Bearer ${TOKEN}` } },
    );
    const view = (await res.json()) as DashboardView;
    const ms = performance.now() - t;
    console.log(
      `inspector dashboard: 30 days of ${RUNS} runs in ${ms.toFixed(0)} ms (${view.runs} runs, journals of ${view.journalRuns})`,
    );
    expect(res.status).toBe(200);
    // Every run of the window counts (from its status record); the journal figures, the newest 5,000.
    expect(view.runs).toBe(43_200);
    expect(view.capped).toBe(false);
    expect(view.journalRuns).toBe(5000);
    expect(view.byStatus.failed).toBe(4320);
    expect(view.buckets.reduce((n, b) => n + b.runs, 0)).toBe(43_200);
    expect(ms).toBeLessThan(1000);
  }, 60_000);

  it("a page deep in the store is as fast as the first (the index, not a scan of what comes before)", async () => {
    const deep = await page(`limit=100&after=${T0 + 500 * 60_000}&afterId=${id(500)}`);
    expect(deep.ms).toBeLessThan(1000);
    expect(deep.body.runs[0]?.runId).toBe(id(499));
  });
});
