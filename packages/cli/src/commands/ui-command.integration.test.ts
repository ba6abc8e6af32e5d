/** `tinyagents ui`: the inspector's HTTP server on a loopback port, started and stopped in memory. */
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";

// Serves the built web app (dist/inspector): `npm test` builds before running Vitest.
const { cli, withUi } = useCli("tinyagents-ui-");

describe("tinyagents ui", () => {
  it("serves the demo run from the default store until Ctrl-C", async () => {
    const demo = await cli(["demo"]);
    expect(demo.code).toBe(0);
    const runId = /tinyagents show (\S+)/.exec(demo.stdout)?.[1];
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
    const bad = await cli(["ui", "--port", "http"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--port must be an integer");
    const short = await cli(["ui", "--token", "abc"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("at least 16 characters");
  });

  it("--help describes it", async () => {
    const help = await cli(["ui", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("tinyagents ui [--db FILE] [--port N] [--host H]");
  });
});
