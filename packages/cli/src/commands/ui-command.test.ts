import { EventEmitter } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../cli-io.js";
import { main } from "../main.js";

// Serves the built web app (dist/inspector): `npm test` builds before running Vitest.
let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "tinyagents-ui-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

function io(signals?: EventEmitter) {
  const out = { stdout: "", stderr: "" };
  const value: CliIo = {
    stdout: { write: (c: string) => (out.stdout += c), isTTY: false },
    stderr: { write: (c: string) => (out.stderr += c) },
    stdin: Readable.from([]),
    env: { TINYAGENTS_HOME: home, HOME: home, TINYAGENTS_DEMO_DELAY_MS: "0" },
    cwd: home,
    ...(signals === undefined
      ? {}
      : {
          signals: {
            on: (e: "SIGINT", l: () => void) => signals.on(e, l),
            off: (e: "SIGINT", l: () => void) => signals.off(e, l),
          },
        }),
  };
  return { io: value, out };
}

/** Start `tinyagents ui ...args`, wait for its URL, hand it to `use`, then Ctrl-C it. */
async function withUi(
  args: string[],
  use: (url: string) => Promise<void>,
): Promise<{ code: number; stdout: string }> {
  const signals = new EventEmitter();
  const { io: cliIo, out } = io(signals);
  const running = main(["ui", "--port", "0", ...args], cliIo);
  let url: string | undefined;
  for (let i = 0; i < 500 && url === undefined; i++) {
    url = /inspector on (\S+)/.exec(out.stdout)?.[1];
    if (url === undefined) await new Promise((r) => setTimeout(r, 20));
  }
  if (url === undefined) throw new Error(`no URL printed; stderr: ${out.stderr}`);
  try {
    await use(url);
  } finally {
    signals.emit("SIGINT");
  }
  return { code: await running, stdout: out.stdout };
}

describe("tinyagents ui", () => {
  it("serves the demo run from the default store until Ctrl-C", async () => {
    const demo = io();
    expect(await main(["demo"], demo.io)).toBe(0);
    const runId = /tinyagents show (\S+)/.exec(demo.out.stdout)?.[1];
    const { code, stdout } = await withUi([], async (url) => {
      // A token even on loopback (any local process or user could read the runs otherwise).
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
      const auth = { headers: { authorization: `Bearer ${new URL(url).searchParams.get("token")}` } };
      expect((await fetch(new URL("/api/runs", url))).status).toBe(401);
      const runs = (await (await fetch(new URL("/api/runs", url), auth)).json()) as {
        runId: string;
        rootAgent: string;
      }[];
      expect(runs.map((r) => [r.runId, r.rootAgent])).toEqual([[runId, "cli:demo"]]);
      const detail = (await (await fetch(new URL(`/api/runs/${runId}`, url), auth)).json()) as {
        contentCaptured: boolean;
        transcript: { kind: string; role?: string; text?: string }[];
        spans: { kind: string }[];
      };
      // The CLI journals content (trace details), so the transcript has the prompt and the answer.
      expect(detail.contentCaptured).toBe(true);
      expect(detail.transcript.find((e) => e.role === "user")?.text).toContain("What time is it in Tokyo");
      expect(detail.spans.some((s) => s.kind === "subagent")).toBe(true);
      // The URL trades its token for an HttpOnly cookie.
      const signIn = await fetch(url, { redirect: "manual" });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get("set-cookie")).toContain("HttpOnly");
    });
    expect(code).toBe(0);
    expect(stdout).toContain("Ctrl-C to stop");
  });

  it("off loopback it prints a URL with a token, and requests without it are refused", async () => {
    await withUi(["--host", "0.0.0.0"], async (url) => {
      const token = new URL(url).searchParams.get("token");
      expect(token).toMatch(/^[\w-]{20,}$/);
      const port = new URL(url).port;
      expect((await fetch(`http://127.0.0.1:${port}/api/runs`)).status).toBe(401);
      expect(
        (await fetch(`http://127.0.0.1:${port}/api/runs`, { headers: { authorization: `Bearer ${token}` } }))
          .status,
      ).toBe(200);
    });
  });

  it("rejects a bad port or a short token with a usage error", async () => {
    const bad = io();
    expect(await main(["ui", "--port", "http"], bad.io)).toBe(2);
    expect(bad.out.stderr).toContain("--port must be an integer");
    const short = io();
    expect(await main(["ui", "--token", "abc"], short.io)).toBe(2);
    expect(short.out.stderr).toContain("at least 16 characters");
  });

  it("--help describes it", async () => {
    const help = io();
    expect(await main(["ui", "--help"], help.io)).toBe(0);
    expect(help.out.stdout).toContain("tinyagents ui [--db FILE] [--port N] [--host H]");
  });
});
