import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkLedger, LedgerViolationError } from "./check-ledger.js";
import { CONFORMANCE_INPUT } from "./conformance-model.js";
import { type LedgerEntry, readLedger } from "./execution-ledger.js";
import { conformanceApprovalId, createConformanceAgent, expectedConformanceRun } from "./scenario-agent.js";

const dirs: string[] = [];
function ledgerPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "conformance-"));
  dirs.push(dir);
  return join(dir, "ledger.jsonl");
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("durable conformance scenario (in process)", () => {
  it("asks for the three tools over three turns, then answers quoting their results", async () => {
    const expected = await expectedConformanceRun("run-a");
    const roles = expected.messages.map((m) => m.role);
    expect(roles).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    const last = expected.messages.at(-1);
    expect(last?.content).toEqual([
      {
        type: "text",
        text:
          "Done. fetch_order: order 42: 3 items (key run-a:call_fetch); " +
          "send_email: email sent to ops@example.com (key run-a:call_email); " +
          "deploy: deployed to staging (key run-a:call_deploy)",
      },
    ]);
    expect(expected.modelCalls).toBe(4);
    expect(expected.toolCalls).toBe(3);
    expect(expected.usage.inputTokens).toBe(100 + 200 + 300 + 400);
    expect(expected.cost.total).toBeGreaterThan(0);
  });

  it("pauses for the human approval, resumes once approved, and ends with the expected run; the ledger counts each execution once", async () => {
    const path = ledgerPath();
    const { agent, approval } = createConformanceAgent({ ledgerPath: path, modelDelayMs: 0, toolDelayMs: 0 });
    const paused = await agent.run(CONFORMANCE_INPUT, { runId: "run-b" });
    expect(paused.stopReason).toBe("interrupted");
    expect(approval.pending().map((r) => r.id)).toEqual([conformanceApprovalId("run-b")]);
    approval.approve(conformanceApprovalId("run-b"));
    const done = await agent.run(paused.paused!);
    const expected = await expectedConformanceRun("run-b");
    expect(done.messages).toEqual(expected.messages);
    expect(done.usage).toEqual(expected.usage);
    expect(done.cost).toEqual(expected.cost);
    const entries = readLedger(path);
    expect(entries.map((e) => `${e.kind}:${e.tool ?? e.callId}`)).toEqual([
      "model:run-b-model-1",
      "tool:fetch_order",
      "model:run-b-model-2",
      "tool:send_email",
      "model:run-b-model-3",
      "tool:deploy",
      "model:run-b-model-4",
    ]);
    expect(entries.every((e) => e.pid === process.pid)).toBe(true);
    const summary = checkLedger(entries, { crashes: 0 });
    expect(summary.duplicates).toBe(0);
    expect(summary.tools.get("run-b:call_email")).toBe(1);
  });
});

describe("checkLedger", () => {
  const tool = (callId: string, sideEffects: "once" | "at-least-once", key = `r:${callId}`): LedgerEntry => ({
    kind: "tool",
    runId: "r",
    callId,
    tool: callId,
    sideEffects,
    idempotencyKey: key,
    pid: 1,
  });
  const model = (callId: string): LedgerEntry => ({ kind: "model", runId: "r", callId, pid: 1 });

  it("accepts an in-flight at-least-once tool and model call run once more per crash", () => {
    const summary = checkLedger([
      model("m1"),
      model("m1"),
      tool("a", "at-least-once"),
      tool("a", "at-least-once"),
    ]);
    expect(summary.duplicates).toBe(2);
  });

  it("names every violation: a once tool twice, a third run after one crash, a wrong key, a completed step re-run", () => {
    const entries = [
      tool("once", "once"),
      tool("once", "once"),
      tool("a", "at-least-once"),
      tool("a", "at-least-once"),
      tool("a", "at-least-once"),
      tool("b", "at-least-once", "other-key"),
      model("m1"),
      model("m1"),
    ];
    let thrown: unknown;
    try {
      checkLedger(entries, { completed: ["r:m1"] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LedgerViolationError);
    expect((thrown as LedgerViolationError).violations).toEqual([
      'tool b r:b: ran with idempotency key "other-key", expected "r:b"',
      "once tool r:once: ran 2 times (at most 1)",
      "at-least-once tool r:a: ran 3 times (at most 2 with 1 crash(es))",
      "step r:m1 was journaled as completed but ran 2 times (exactly 1)",
    ]);
  });

  it("readLedger skips a torn last line (a writer killed mid-line) and rejects a torn line in the middle", () => {
    const path = ledgerPath();
    writeFileSync(path, `${JSON.stringify(model("m1"))}\n{"kind":"to`);
    expect(readLedger(path)).toEqual([model("m1")]);
    writeFileSync(path, `{"kind":"to\n${JSON.stringify(model("m1"))}\n`);
    expect(() => readLedger(path)).toThrow(/line 1 is not JSON/);
  });
});
