import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../../../../scripts/build/bundle-web-app.mjs";
import { type CliStore, openCliStore } from "../core/cli-store.js";
import { type RecordedRuns, recordRuns, XSS_PAYLOAD } from "./inspector.fixture.js";
import { type InspectorServer, serveInspector } from "./inspector-server.js";
import type { RunDetail, RunSummary } from "./view-types.js";

let dir: string;
let assetsDir: string;
let store: CliStore;
let runs: RecordedRuns;
let server: InspectorServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspector-api-"));
  assetsDir = join(dir, "assets");
  await buildWebApp(join(import.meta.dirname, "../../ui-app"), assetsDir);
  store = await openCliStore(join(dir, "t.db"));
  runs = await recordRuns(store);
  server = await serveInspector({ ...store, controls: runs.controls, assetsDir, pollMs: 50, token: TOKEN });
}, 120_000);

afterAll(async () => {
  runs?.releaseLive();
  runs?.releaseSteered();
  await runs?.settled();
  await server?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every bind needs a token, loopback included: the API tests send it as a bearer token. */
const TOKEN = "inspector-test-token-0123";
const AUTH = { authorization: `Bearer ${TOKEN}` };

const api = async <T>(path: string, init?: RequestInit): Promise<{ status: number; body: T }> => {
  const res = await fetch(new URL(path, server.url), { ...init, headers: { ...AUTH, ...init?.headers } });
  return { status: res.status, body: (await res.json()) as T };
};

describe("the inspector's API over real runs", () => {
  it("serves the app with a strict content security policy, on loopback, with its token", async () => {
    expect(server.host).toBe("127.0.0.1");
    expect(server.url).toContain(`?token=${TOKEN}`);
    expect(await rawGet(server.port, "/api/runs", {})).toBe(401);
    const res = await fetch(new URL("/", server.url), { headers: AUTH });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await res.text()).toContain('<script type="module" src="/app.js">');
  });

  it("lists runs newest first with models, tokens, cost (unknown where unknown) and status", async () => {
    const { body } = await api<RunSummary[]>("/api/runs");
    expect(body.map((r) => r.runId)).toEqual([
      runs.ids.steered,
      runs.ids.live,
      runs.ids.approval,
      runs.ids.cacheBust,
      runs.ids.failure,
      runs.ids.fallback,
      runs.ids.tools,
    ]);
    const byId = new Map(body.map((r) => [r.runId, r]));
    expect(byId.get(runs.ids.live)?.status).toBe("running");
    expect(byId.get(runs.ids.fallback)?.models).toEqual(["primary", "backup"]);
    expect(byId.get(runs.ids.failure)).toMatchObject({
      status: "failed",
      error: { code: "provider", message: "invalid request: bad schema" },
      cost: { unknown: true },
    });
    expect(byId.get(runs.ids.tools)?.cost.unknown).toBe(false);
    expect(byId.get(runs.ids.tools)?.tokens.totalTokens).toBe(3 * 440 + 2 * 92);
    // Any library run's RunConfig.tags, from its status record (no host description here).
    expect(byId.get(runs.ids.tools)?.tags).toEqual(["scenario:tools"]);
    expect(byId.get(runs.ids.failure)?.tags).toEqual(["scenario:failure"]);
  });

  it("a run's detail: nested timeline with retry, fallback and sub-agent; transcript; cost by model and agent", async () => {
    const { body: tools } = await api<RunDetail>(`/api/runs/${runs.ids.tools}`);
    const sub = tools.spans.find((s) => s.kind === "subagent");
    expect(sub).toMatchObject({ label: "sub-agent research", depth: 1, status: "ok" });
    expect(tools.spans.filter((s) => s.kind === "model" && s.depth === 2)).toHaveLength(2);
    expect(
      tools.spans.filter((s) => s.kind === "model" && s.depth === 1).every((s) => s.ttftMs !== undefined),
    ).toBe(true);
    const hostile = tools.transcript.find((e) => e.kind === "tool_call" && e.toolName === "fetch_page");
    expect(hostile).toMatchObject({ result: XSS_PAYLOAD, status: "ok" });
    expect(tools.transcript.find((e) => e.kind === "structured")).toMatchObject({
      value: { answer: "84", checked: true },
    });
    expect(tools.byModel.map((r) => r.key).sort()).toEqual(["main-model", "research-model"]);
    expect(tools.bySubAgent.map((r) => [r.key, r.calls])).toEqual([
      ["main", 3],
      ["research", 2],
    ]);

    const { body: fallback } = await api<RunDetail>(`/api/runs/${runs.ids.fallback}`);
    expect(fallback.spans.map((s) => `${s.kind}:${s.status}`)).toEqual([
      "run:ok",
      "model:error",
      "retry:ok",
      "model:error",
      "fallback:ok",
      "model:ok",
    ]);
    expect(fallback.transcript.filter((e) => e.kind === "error")).toHaveLength(2);
  });

  it("the prompt-cache view names the middleware that busted the prefix", async () => {
    const { body: bust } = await api<RunDetail>(`/api/runs/${runs.ids.cacheBust}`);
    expect(bust.cache.map((c) => c.prefix)).toEqual(["first", "busted"]);
    expect(bust.cache[1]?.changes).toEqual([{ middleware: "rotating_date", segment: "system" }]);
    expect(bust.cache[1]?.cachedShare).toBeCloseTo(0.9);
    const { body: tools } = await api<RunDetail>(`/api/runs/${runs.ids.tools}`);
    expect(tools.cache.filter((c) => c.runId === runs.ids.tools).map((c) => c.prefix)).toEqual([
      "first",
      "preserved",
      "preserved",
    ]);
  });

  it("streams a running run's observations over Server-Sent Events from an offset", async () => {
    const { body } = await api<RunDetail>(`/api/runs/${runs.ids.live}`);
    const events = await readSse(`/api/runs/${runs.ids.live}/events?from=${body.nextOffset}`, () =>
      runs.releaseLive(),
    );
    // From the offset on (the journal leaves bookkeeping events out, so offsets may have gaps).
    expect(events[0]?.offset).toBeGreaterThanOrEqual(body.nextOffset);
    expect(events.map((o) => o.event.type)).toContain("run.completed");
    const offsets = events.map((o) => o.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });

  it("pending approvals are listed and decided through the controls; the run then finishes", async () => {
    const { body } = await api<RunDetail>(`/api/runs/${runs.ids.approval}`);
    expect(body.summary.status).toBe("interrupted");
    expect(body.approvals).toEqual([
      expect.objectContaining({
        approvalId: `${runs.ids.approval}/c1`,
        toolName: "transfer",
        arguments: { amount: 100 },
      }),
    ]);
    expect(body.control).toMatchObject({ listening: true, canDecide: true });
    const denied = await api<{ error: { message: string } }>(`/api/runs/${runs.ids.approval}/actions`, {
      method: "POST",
      body: JSON.stringify({ action: "approve", approvalId: `${runs.ids.approval}/c1` }),
    });
    expect(denied.status).toBe(403);
    const bad = await act(runs.ids.approval, { action: "approve" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('"approvalId"');
    const ok = await act(runs.ids.approval, { action: "approve", approvalId: `${runs.ids.approval}/c1` });
    expect(ok).toMatchObject({ status: 200, body: { ok: true, resumed: true } });
    const after = await waitForStatus(runs.ids.approval, "completed");
    expect(after.transcript.find((e) => e.kind === "tool_call" && e.toolName === "transfer")).toMatchObject({
      status: "ok",
      result: "sent $100",
    });
  });

  it("pauses a listening run at its next checkpoint, then resumes it to the end", async () => {
    const { body: running } = await api<RunDetail>(`/api/runs/${runs.ids.steered}`);
    expect(running.control).toMatchObject({
      listening: true,
      canPause: true,
      canCancel: true,
      canResume: false,
    });
    expect((await act(runs.ids.steered, { action: "pause" })).body).toEqual({ ok: true, resumed: false });
    runs.releaseSteered();
    const paused = await waitForStatus(runs.ids.steered, "interrupted");
    expect(paused.transcript.map((e) => (e.kind === "note" ? e.text : e.kind))).toContain("steering: pause");
    expect(paused.control).toMatchObject({ canPause: false, canResume: true });
    expect((await act(runs.ids.steered, { action: "resume" })).body).toEqual({ ok: true, resumed: true });
    const done = await waitForStatus(runs.ids.steered, "completed");
    expect(done.transcript.at(-1)).toMatchObject({
      kind: "message",
      role: "assistant",
      text: "Finished after the pause.",
    });
  });

  it("says when a run's process does not listen, and refuses to act on it", async () => {
    const { body } = await api<RunDetail>(`/api/runs/${runs.ids.tools}`);
    expect(body.control.listening).toBe(false);
    expect(body.control.note).toContain("does not listen");
    const res = await act(runs.ids.tools, { action: "cancel" });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("does not listen");
  });

  it("compares two runs and answers 404 for unknown ones", async () => {
    const { status, body } = await api<{ a: RunDetail; b: RunDetail }>(
      `/api/compare?a=${runs.ids.tools}&b=${runs.ids.cacheBust}`,
    );
    expect(status).toBe(200);
    expect([body.a.summary.runId, body.b.summary.runId]).toEqual([runs.ids.tools, runs.ids.cacheBust]);
    expect((await api(`/api/runs/nope`)).status).toBe(404);
    expect((await api(`/api/compare?a=nope&b=${runs.ids.tools}`)).status).toBe(404);
  });

  it("on loopback, rejects requests whose Host header is not loopback (DNS rebinding)", async () => {
    const status = await rawGet(server.port, "/api/runs", { host: "evil.example:80" });
    expect(status).toBe(421);
  });
});

describe("binding beyond loopback", () => {
  it("requires a token: generated when missing, checked on every request", async () => {
    const open = await serveInspector({ ...store, assetsDir, host: "0.0.0.0" });
    try {
      expect(open.token).toMatch(/^[\w-]{20,}$/);
      expect(open.url).toContain(`?token=${open.token}`);
      expect(await rawGet(open.port, "/api/runs", {})).toBe(401);
      expect(await rawGet(open.port, "/", {})).toBe(401);
      expect(await rawGet(open.port, "/api/runs", { authorization: `Bearer ${open.token}` })).toBe(200);
      expect(await rawGet(open.port, "/api/runs", { authorization: "Bearer wrong-token-wrong-token" })).toBe(
        401,
      );
      // The token in the URL becomes an HttpOnly cookie.
      const res = await fetch(`http://127.0.0.1:${open.port}/?token=${open.token}`, { redirect: "manual" });
      expect(res.status).toBe(303);
      const cookie = res.headers.get("set-cookie") ?? "";
      expect(cookie).toContain("HttpOnly");
      expect(await rawGet(open.port, "/api/runs", { cookie: cookie.split(";")[0] ?? "" })).toBe(200);
    } finally {
      await open.close();
    }
  });

  it("rejects a short token", async () => {
    await expect(serveInspector({ ...store, assetsDir, token: "short" })).rejects.toThrow(/at least 16/);
  });
});

/**
 * Poll a run's detail until its status is `status` and the journal has caught up with it (the
 * root's terminal event is there: the status store and the journal are written separately).
 */
async function waitForStatus(runId: string, status: string): Promise<RunDetail> {
  let last: RunDetail | undefined;
  const ended = (d: RunDetail) =>
    d.spans.some((s) => s.kind === "run" && s.status !== "running") &&
    (status !== "completed" || d.transcript.at(-1)?.kind !== "note");
  for (let i = 0; i < 600; i++) {
    last = (await api<RunDetail>(`/api/runs/${runId}`)).body;
    if (last.summary.status === status && ended(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} is ${last?.summary.status}, not ${status}`);
}

async function act(runId: string, body: unknown) {
  return api<{ ok?: boolean; resumed?: boolean; error: { message: string } }>(`/api/runs/${runId}/actions`, {
    method: "POST",
    headers: { "x-tinyagents-inspector": "1", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** GET with exact headers (fetch would not let a test set Host). */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Read SSE observations until the root run ends; `onOpen` runs once the stream is open. */
async function readSse(
  path: string,
  onOpen: () => void,
): Promise<{ offset: number; depth: number; event: { type: string } }[]> {
  const controller = new AbortController();
  const res = await fetch(new URL(path, server.url), { signal: controller.signal, headers: AUTH });
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  onOpen();
  const out: { offset: number; depth: number; event: { type: string } }[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block.split("\n").find((l) => l.startsWith("data: "));
      if (data !== undefined && block.includes("event: observation")) out.push(JSON.parse(data.slice(6)));
      cut = buffer.indexOf("\n\n");
    }
    if (out.some((o) => o.depth === 0 && o.event.type === "run.completed")) break;
  }
  controller.abort();
  await reader.cancel().catch(() => {});
  return out;
}
