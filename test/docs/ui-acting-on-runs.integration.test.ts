/**
 * docs/ui.md "Acting on runs" (issue 35): the snippet does not only typecheck, it RUNS as written
 * — the run pauses for approval of the tool it registers, and approving then resuming (what the
 * page's Approve button does) completes it. The snippet is taken from the page, its port set to 0
 * and a few lines appended to act like the page; it runs in its own Node process (through tsx)
 * against the BUILT packages (`npm test` builds first). Integration tier: spawns a process that
 * serves the inspector on loopback. Budget: ~10 s.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { extractSnippets } from "./doc-snippets.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = join(root, "node_modules/.cache/tinyagents-ui-snippet");

describe("docs/ui.md: Acting on runs", () => {
  it("runs: pauses for approval of a registered tool; approving and resuming completes the run", async () => {
    const page = readFileSync(join(root, "docs/ui.md"), "utf8");
    const heading = page.split("\n").findIndex((line) => line.startsWith("## Acting on runs"));
    const snippet = extractSnippets("docs/ui.md", page).find((s) => s.line > heading + 1);
    expect(snippet, "the section has a ts snippet").toBeDefined();
    const code = (snippet?.code ?? "").replace("port: 4173", "port: 0");
    const acting = `
${code}
// What the page does when you click Approve on the pending approval, then the run resumes.
const pending = approval.approvals.pending();
for (const record of pending) approval.approvals.approve(record.id);
const resumed = paused === undefined ? undefined : await agent.resume(paused, { events, steering });
console.log(JSON.stringify({
  firstStop: first.stopReason,
  pending: pending.map((r) => r.toolName),
  finalStop: resumed?.stopReason,
  answer: resumed?.finalResponse?.message.content,
}));
await inspector.close();
`;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "acting-on-runs.mts");
    writeFileSync(file, acting);
    const out = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", file],
        { cwd: root, timeout: 30_000 },
        (error, stdout, stderr) =>
          resolve({ stdout, stderr, code: error === null ? 0 : ((error as { code?: number }).code ?? 1) }),
      );
    });
    expect(out.code, out.stderr).toBe(0);
    const summary = JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
    expect(summary.firstStop).toBe("interrupted");
    expect(summary.pending).toEqual(["transfer"]);
    expect(summary.finalStop).toBe("completed");
    expect(JSON.stringify(summary.answer)).toContain("Paid.");
  }, 60_000);
});
