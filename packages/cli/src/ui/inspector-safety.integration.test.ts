/**
 * The inspector's server, safe by default (issue 39 #8, #9) and paging big runs (#10): a token on
 * every bind, loopback included; 400 (never 500) for malformed percent-encoding; any stored run id
 * openable; a run's long parts served in pages. In-memory stores, one server; about 2 s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryEventJournal, InMemoryHarnessStatusStore } from "@tinyagents/harness";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../../../../scripts/build/bundle-web-app.mjs";
import { seedRun } from "./inspector-seed.fixture.js";
import { type InspectorServer, serveInspector } from "./inspector-server.js";
import type { DetailPage, RunDetailPage, RunSummary, SpanView } from "./view-types.js";

const ODD_IDS = ["..", ".", "a/b", "run%2F1", "ünïcödé-🚀", "../../etc/passwd", "id with spaces?&#"];
const TOKEN = "safety-test-token-0123456789";
const AUTH = { authorization: `Bearer ${TOKEN}` };

let dir: string;
let server: InspectorServer;
let bigRecords: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspector-safety-"));
  const assetsDir = join(dir, "assets");
  await buildWebApp(join(import.meta.dirname, "../../ui-app"), assetsDir);
  const stores = { journal: new InMemoryEventJournal(), statusStore: new InMemoryHarnessStatusStore() };
  for (const [i, id] of ODD_IDS.entries())
    await seedRun(stores, id, { startedAt: Date.UTC(2026, 0, 1, 0, i) });
  bigRecords = await seedRun(stores, "big", { steps: 400, usdPerCall: 0.0001 });
  server = await serveInspector({ ...stores, assetsDir, token: TOKEN });
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** GET `path` exactly as given (fetch would normalize it), with the token unless told otherwise. */
function rawGet(
  path: string,
  headers: Record<string, string> = AUTH,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const json = async <T>(path: string): Promise<T> => {
  const res = await rawGet(path);
  expect(res.status, `${path}: ${res.body}`).toBe(200);
  return JSON.parse(res.body) as T;
};

describe("a token on every bind (issue 39 #8)", () => {
  it("on loopback too: the API, the run pages and the app answer 401 without it", async () => {
    expect(server.host).toBe("127.0.0.1");
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${TOKEN}`);
    for (const path of ["/", "/app.js", "/api/runs", "/api/run?id=big", "/api/runs/big"])
      expect((await rawGet(path, {})).status, path).toBe(401);
    expect((await rawGet("/api/runs", { authorization: "Bearer not-the-token-at-all" })).status).toBe(401);
    expect((await rawGet("/api/runs")).status).toBe(200);
  });

  it("a generated one when none is given, also on loopback", async () => {
    const other = await serveInspector({
      journal: new InMemoryEventJournal(),
      statusStore: new InMemoryHarnessStatusStore(),
      assetsDir: join(dir, "assets"),
    });
    try {
      expect(other.token).toMatch(/^[\w-]{20,}$/);
      expect(other.url).toContain(`?token=${other.token}`);
      expect((await fetch(`http://127.0.0.1:${other.port}/api/runs`)).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe("malformed paths and odd run ids (issue 39 #9)", () => {
  it("malformed percent-encoding answers 400, never 500", async () => {
    for (const path of ["/api/runs/%", "/api/runs/%E0%A4%A", "/api/runs/%zz/events", "/%C0%AF", "/api/%"]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe("validation");
    }
  });

  it("property: no fuzzed path under /api answers 5xx", async () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9%._~-]{0,12}$/);
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), async (parts) => {
        const { status } = await rawGet(`/api/${parts.join("/")}`);
        expect(status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });

  it("every stored id is listed and opens by ?id= (`..`, slashes, unicode, reserved characters)", async () => {
    const listed = (await json<RunSummary[]>("/api/runs")).map((r) => r.runId);
    for (const id of ODD_IDS) {
      expect(listed).toContain(id);
      const detail = await json<RunDetailPage>(`/api/run?id=${encodeURIComponent(id)}`);
      expect(detail.summary.runId).toBe(id);
    }
    // The path form too, for ids a path segment can carry (encoded).
    expect((await json<RunDetailPage>(`/api/runs/${encodeURIComponent("a/b")}`)).summary.runId).toBe("a/b");
    expect((await rawGet("/api/run?id=no-such-run")).status).toBe(404);
    expect((await rawGet("/api/run")).status).toBe(400);
  });
});

describe("a big run is served in pages (issue 39 #10)", () => {
  it("the detail carries the first page of each part and the totals; the rest comes by part", async () => {
    const head = await json<RunDetailPage>("/api/run?id=big");
    expect(head.observations).toBe(bigRecords);
    expect(head.totals.spans).toBe(1 + 400 * 2);
    expect(head.spans).toHaveLength(100);
    expect(head.totals.cache).toBe(400);
    const rest: SpanView[] = [];
    for (let from = head.spans.length; from < head.totals.spans; ) {
      const page = await json<DetailPage<SpanView>>(`/api/run/part?id=big&part=spans&from=${from}`);
      expect(page.from).toBe(from);
      expect(page.total).toBe(head.totals.spans);
      rest.push(...page.items);
      from += page.items.length;
    }
    const all = [...head.spans, ...rest];
    expect(all).toHaveLength(head.totals.spans);
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
    expect((await rawGet("/api/run/part?id=big&part=secrets")).status).toBe(400);
    expect((await rawGet("/api/run/part?id=big&part=spans&limit=99999")).status).toBe(400);
  });
});
