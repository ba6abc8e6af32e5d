/**
 * Issue 18 item 5, the in-process leg of the conformance suite (Restate and DBOS run the same
 * scenario in their packages): a worker process running the testkit's conformance scenario with
 * a SQLite checkpoint store is SIGKILLed inside a model step, inside an at-least-once tool,
 * inside a "once" tool and during the human wait; a fresh process finishes the run. The final
 * transcript and totals equal an uninterrupted run (a cut "once" call answers "outcome
 * unknown"), and the execution ledger obeys `checkLedger`. Imports the built packages.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  checkLedger,
  expectedConformanceRun,
  type LedgerEntry,
  readLedger,
} from "@tinyagents/harness/testkit";
import { type Message, text } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";

const worker = fileURLToPath(new URL("./fixtures/conformance-worker.mjs", import.meta.url));
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});

interface Worker {
  child: ChildProcess;
  stdout: () => string;
  exited: Promise<string>;
}

function spawnWorker(dir: string, runId: string, mode: "wait" | "approve"): Worker {
  const child = spawn(process.execPath, [worker, dir, runId, mode], { stdio: ["ignore", "pipe", "pipe"] });
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<string>((resolve) => {
    child.on("exit", (code, signal) => resolve(`${code ?? signal}${err === "" ? "" : `: ${err}`}`));
  });
  return { child, stdout: () => out, exited };
}

/** Poll until `ready()` holds (the worker reached the kill point), then SIGKILL it. */
async function killWhen(w: Worker, ready: () => boolean): Promise<void> {
  let exitedEarly = false;
  void w.exited.then(() => {
    exitedEarly = true;
  });
  while (!ready()) {
    if (exitedEarly) throw new Error(`the worker ended before the kill point: ${await w.exited}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  w.child.kill("SIGKILL");
  expect(await w.exited).toBe("SIGKILL");
}

async function crashAndFinish(runId: string, killPoint: (entries: LedgerEntry[], w: Worker) => boolean) {
  const dir = mkdtempSync(join(tmpdir(), "conformance-inprocess-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const ledger = join(dir, "ledger.jsonl");
  const first = spawnWorker(dir, runId, "wait");
  await killWhen(first, () => killPoint(readLedger(ledger), first));
  const second = spawnWorker(dir, runId, "approve");
  expect(await second.exited).toBe("0");
  const result = JSON.parse(readFileSync(join(dir, "result.json"), "utf8"));
  const entries = readLedger(ledger);
  // Two processes took part, and only one crash happened.
  expect(new Set(entries.map((e) => e.pid)).size).toBe(2);
  return { result, entries, summary: checkLedger(entries, { crashes: 1 }) };
}

const has = (entries: LedgerEntry[], kind: string, callId: string) =>
  entries.some((e) => e.kind === kind && e.callId === callId);
const count = (entries: LedgerEntry[], callId: string) => entries.filter((e) => e.callId === callId).length;

describe("conformance scenario in process: SIGKILL a worker, finish on another", { timeout: 60_000 }, () => {
  it("inside a model step: the turn is issued again, the transcript and totals are the uninterrupted run's", async () => {
    const runId = "inproc-model";
    const { result, entries } = await crashAndFinish(runId, (e) => has(e, "model", `${runId}-model-2`));
    const expected = await expectedConformanceRun(runId);
    expect(result.messages).toEqual(expected.messages);
    expect(result.usage).toEqual(expected.usage);
    expect(result.cost).toEqual(expected.cost);
    expect(count(entries, `${runId}-model-2`)).toBe(2);
    expect(count(entries, "call_fetch")).toBe(1);
  });

  it("inside an at-least-once tool: it runs once more with the same idempotency key", async () => {
    const runId = "inproc-tool";
    const { result, entries } = await crashAndFinish(runId, (e) => has(e, "tool", "call_fetch"));
    const expected = await expectedConformanceRun(runId);
    expect(result.messages).toEqual(expected.messages);
    expect(result.usage).toEqual(expected.usage);
    const keys = entries.filter((e) => e.callId === "call_fetch").map((e) => e.idempotencyKey);
    expect(keys).toEqual([`${runId}:call_fetch`, `${runId}:call_fetch`]);
    expect(count(entries, `${runId}-model-1`)).toBe(1);
  });

  it("inside a once tool: never run twice; the recovered run answers 'outcome unknown'", async () => {
    const runId = "inproc-once";
    const { result, entries } = await crashAndFinish(runId, (e) => has(e, "tool", "call_email"));
    expect(count(entries, "call_email")).toBe(1);
    const email = (result.messages as Message[]).find(
      (m) => m.role === "tool" && m.toolCallId === "call_email",
    );
    expect(text(email)).toContain('the outcome of tool "send_email" (call call_email) is unknown');
    expect(result.stopReason).toBe("completed");
  });

  it("during the human wait: another worker resumes the paused run once approved; nothing before the wait runs again", async () => {
    const runId = "inproc-wait";
    const { result, entries, summary } = await crashAndFinish(runId, (_e, w) =>
      w.stdout().includes("waiting"),
    );
    const expected = await expectedConformanceRun(runId);
    expect(result.messages).toEqual(expected.messages);
    expect(result.usage).toEqual(expected.usage);
    expect(result.cost).toEqual(expected.cost);
    expect(summary.duplicates).toBe(0);
    expect(count(entries, "call_deploy")).toBe(1);
  });
});
