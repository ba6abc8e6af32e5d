/**
 * A 10,000-record run in a SQLite store, read by 10 clients at once from an inspector in its own
 * process (issue 39 #10): the server's peak RSS stays under 300 MB and a small request made
 * meanwhile is never held more than 50 ms. Figures are printed for docs/performance.md.
 * Time budget: about 10 s (seeding 3 s, the reads 1-2 s, two processes).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../../../../scripts/build/bundle-web-app.mjs";
import { openCliStore } from "../cli-store.js";
import { seedRun } from "./inspector-seed.fixture.js";
import type { RunDetailPage } from "./view-types.js";

const TOKEN = "load-test-token-0123456789";
let dir: string;
let child: ChildProcess;
let base: string;
let records: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspector-load-"));
  const assetsDir = join(dir, "assets");
  await buildWebApp(join(import.meta.dirname, "../../ui-app"), assetsDir);
  const file = join(dir, "t.db");
  const store = await openCliStore(file);
  records = await seedRun(store, "big", { steps: 1250, usdPerCall: 0.0001 });
  await seedRun(store, "tiny", { steps: 1 });
  await store.close();
  child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(import.meta.dirname, "inspector-load-server.fixture.ts"),
      file,
      TOKEN,
      assetsDir,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = /\{"port":(\d+)\}/.exec(out);
      if (line !== null) resolve(Number(line[1]));
    });
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  if (child?.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });

/** The server's resident set now and at its peak, MB (Linux /proc). */
function rss(): { now: number; peak: number } {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { now: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

describe("a 10,000-record run under 10 concurrent readers", () => {
  it("peak RSS < 300 MB, and a small request meanwhile waits < 50 ms", async () => {
    expect(records).toBeGreaterThanOrEqual(10_000);
    // Warm the small request's path (the tiny run's detail, the server's code): what is measured
    // is how long the big run's reads hold it, not its own first time.
    for (let i = 0; i < 5; i++) await (await get("/api/run/part?id=tiny&part=spans&limit=3")).arrayBuffer();
    const before = rss();
    // A small request (the 1-step run's first page, about 1 KB) in a loop while the reads run.
    let reading = true;
    const small: number[] = [];
    const probe = (async () => {
      while (reading) {
        const t = performance.now();
        const res = await get("/api/run/part?id=tiny&part=spans&limit=3");
        await res.arrayBuffer();
        small.push(performance.now() - t);
      }
    })();
    const t0 = performance.now();
    const pages = await Promise.all(
      Array.from({ length: 10 }, async () => (await (await get("/api/run?id=big")).json()) as RunDetailPage),
    );
    const readsMs = performance.now() - t0;
    reading = false;
    await probe;
    const after = rss();
    for (const page of pages) {
      expect(page.observations).toBe(records);
      expect(page.spans.length).toBeLessThanOrEqual(100);
    }
    const worst = Math.max(...small);
    console.log(
      `inspector load: ${records} records, 10 concurrent reads in ${readsMs.toFixed(0)} ms; ` +
        `server RSS ${before.now.toFixed(0)} -> ${after.now.toFixed(0)} MB, peak ${after.peak.toFixed(0)} MB; ` +
        `small request: ${small.length} made, max ${worst.toFixed(1)} ms [${small.map((x) => x.toFixed(0)).join(",")}]`,
    );
    expect(after.peak).toBeLessThan(300);
    expect(small.length).toBeGreaterThan(0);
    expect(worst).toBeLessThan(50);
  }, 60_000);
});
