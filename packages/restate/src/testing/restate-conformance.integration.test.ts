/**
 * Issue 18's conformance suite on Restate, for real: restate-server from node_modules, three
 * worker processes (built packages) behind one deployment URL, the testkit's scenario agent
 * (50 ms model, 20 ms tools, a human approval before `deploy`). The worker executing a run is
 * SIGKILLed inside a model step, inside an at-least-once tool, inside the "once" tool, and while
 * the run waits for the approval; each run must finish on a surviving worker with the transcript
 * of an uninterrupted run, and the shared execution ledger must satisfy `checkLedger`: completed
 * steps never ran again, the in-flight at-least-once step ran once more with the same
 * idempotency key, the "once" tool never ran twice.
 *
 * The kill is deterministic: the worker freezes inside the targeted step right after writing its
 * ledger line and says so (see fixtures/conformance-worker.mjs); the test kills it then. Every
 * worker journals the runs' events to one SQLite journal: each run's stream must read like one
 * uninterrupted run (`streamProblems`), a killed attempt closed by `*.abandoned` (issue 36), or —
 * when the worker is killed after the call's end was journaled but before Restate stored its step
 * — followed by the attempt that ran again.
 * Skipped only with TINYAGENTS_SKIP_RESTATE=1. Needs `npm run build` (CI's `npm test` builds first).
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppendLogEventJournal } from "@tinyagents/harness";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import {
  CONFORMANCE_APPROVAL_HASH,
  CONFORMANCE_INPUT,
  checkLedger,
  conformanceApprovalId,
  conformanceReply,
  expectedConformanceRun,
  type LedgerEntry,
  readLedger,
  streamProblems,
} from "@tinyagents/harness/testkit";
import type { Message } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RestateAgentClient } from "../index.js";
import { type RestateServer, startRestateServer } from "./restate-server.js";
import { startWorkerPool, type WorkerPool } from "./worker-pool.js";

const SKIP = process.env.TINYAGENTS_SKIP_RESTATE === "1";
if (SKIP) console.warn("TINYAGENTS_SKIP_RESTATE=1: skipping the Restate conformance suite (it runs in CI)");
const WORKER = fileURLToPath(new URL("./fixtures/conformance-worker.mjs", import.meta.url));
const DIST = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const AGENT = "conformance";

interface Hold {
  kind: "model" | "tool";
  tool?: string;
  nth?: number;
  /** Hang after the tool's work returned (its end journaled) instead of freezing inside it. */
  after?: boolean;
}

describe.skipIf(SKIP)("Restate conformance: SIGKILL the worker running the run (3 workers)", () => {
  let server: RestateServer;
  let pool: WorkerPool;
  let client: RestateAgentClient;
  let dir: string;
  let ledgerPath: string;
  let holdPath: string;
  let journalPath: string;
  const held = new Map<string, { worker: number; entry: LedgerEntry }>();
  const wakers = new Set<() => void>();

  beforeAll(async () => {
    if (!existsSync(DIST))
      throw new Error(`${DIST} is missing: run npm run build first (the workers import dist)`);
    dir = await mkdtemp(join(tmpdir(), "tinyagents-restate-conformance-"));
    ledgerPath = join(dir, "ledger.jsonl");
    holdPath = join(dir, "hold.json");
    journalPath = join(dir, "events.sqlite");
    server = await startRestateServer({ streamsPerConnection: 1, retryInitialIntervalMs: 100 });
    pool = await startWorkerPool({
      script: WORKER,
      workers: 3,
      env: { TINYAGENTS_CONFORMANCE: JSON.stringify({ ledgerPath, holdPath, journalPath }) },
      onLine: (line, worker) => {
        if (!line.startsWith("holding ")) return;
        const entry = JSON.parse(line.slice("holding ".length)) as LedgerEntry;
        held.set(entry.runId, { worker, entry });
        for (const wake of wakers) wake();
      },
    });
    await server.registerDeployment(pool.url);
    client = new RestateAgentClient({ ingressUrl: server.ingressUrl });
  }, 120_000);

  afterAll(async () => {
    await pool?.stop();
    await server?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** Resolves once `check()` is truthy, re-checked whenever a worker reports a hold or every 25 ms. */
  async function until<T>(check: () => Promise<T | undefined> | T | undefined): Promise<T> {
    for (;;) {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      await new Promise<void>((resolve) => {
        const wake = () => {
          wakers.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, 25);
        wakers.add(wake);
      });
    }
  }

  const workerOf = (pid: number) => pool.workers().findIndex((w) => w.pid === pid);
  const entriesOf = (runId: string) => readLedger(ledgerPath).filter((e) => e.runId === runId);
  const keyOf = (e: LedgerEntry) => `${e.runId}:${e.callId}`;

  /** The run's journaled event types, after checking the stream reads like one uninterrupted run. */
  function checkedStream(runId: string): Promise<string[]> {
    const store = SqliteStore.open(journalPath);
    return new AppendLogEventJournal(store.appendLog)
      .read(runId)
      .then((stream) => {
        expect(streamProblems(stream)).toEqual([]);
        return stream.map((r) => r.event.type);
      })
      .finally(() => store.close());
  }

  /** The journaled `tool.*` bracket events of call `callId` of run `runId` (`type`, `isError`). */
  function toolEvents(runId: string, callId: string): Promise<[string, boolean | undefined][]> {
    const store = SqliteStore.open(journalPath);
    return new AppendLogEventJournal(store.appendLog)
      .read(runId)
      .then((stream) =>
        stream
          .map((r) => r.event as { type: string; callId?: string; isError?: boolean })
          .filter((e) => e.callId === callId && /^tool\.(started|completed|failed|abandoned)$/.test(e.type))
          .map((e): [string, boolean | undefined] => [e.type, e.isError]),
      )
      .finally(() => store.close());
  }

  /** Wait until the run waits for its approval, approve it, and return its outcome. */
  async function approveAndFinish(runId: string) {
    await until(async () => (await client.status(AGENT, runId))?.phase === "waiting" || undefined);
    await client.approve(AGENT, runId, conformanceApprovalId(runId), {
      argumentsHash: CONFORMANCE_APPROVAL_HASH,
    });
    const outcome = await client.result(AGENT, runId);
    expect(outcome.state).toBe("completed");
    const types = await checkedStream(runId);
    expect(types.filter((t) => t === "run.started")).toHaveLength(1);
    expect(types.filter((t) => t === "approval.requested")).toHaveLength(1);
    return outcome;
  }

  /** Start `runId`, kill the worker frozen in the step `hold` names, finish the run elsewhere. */
  async function killInside(runId: string, hold: Hold) {
    await writeFile(holdPath, JSON.stringify({ runId, ...hold }));
    await client.start(AGENT, runId, CONFORMANCE_INPUT);
    const { worker, entry } = await until(() => held.get(runId));
    const before = entriesOf(runId);
    const victimPid = pool.workers()[worker]?.pid;
    await pool.kill(worker, "SIGKILL");
    const outcome = await approveAndFinish(runId);
    const entries = entriesOf(runId);
    await pool.restart(worker); // back to three workers for the next case
    return { outcome, entries, before, entry, victimPid };
  }

  it("an uninterrupted run on the pool ends with the expected transcript, usage and cost", async () => {
    const outcome = await (async () => {
      await client.start(AGENT, "run-plain", CONFORMANCE_INPUT);
      return approveAndFinish("run-plain");
    })();
    const expected = await expectedConformanceRun("run-plain");
    expect(outcome.result.messages).toEqual(expected.messages);
    expect(outcome.result.usage).toEqual(expected.usage);
    expect(outcome.result.cost).toEqual(expected.cost);
    expect(checkLedger(entriesOf("run-plain"), { crashes: 0 }).duplicates).toBe(0);
  });

  it("SIGKILL inside a model step: the step runs again on a survivor, completed steps never rerun", async () => {
    const { outcome, entries, before, entry, victimPid } = await killInside("run-model", {
      kind: "model",
      nth: 2,
    });
    expect(outcome.result.messages).toEqual((await expectedConformanceRun("run-model")).messages);
    const completed = before.filter((e) => keyOf(e) !== keyOf(entry)).map(keyOf);
    expect(completed.length).toBe(2); // model 1 and fetch_order were journaled before the kill
    const summary = checkLedger(entries, { crashes: 1, completed });
    expect(summary.models.get(keyOf(entry))).toBe(2);
    expect(summary.duplicates).toBe(1);
    const rerun = entries.filter((e) => keyOf(e) === keyOf(entry))[1];
    expect(rerun?.pid).not.toBe(victimPid);
    expect(workerOf(rerun?.pid ?? -1)).toBeGreaterThanOrEqual(0);
    // The worker froze in the same turn it emitted the call's events: none reached the journal,
    // so the stream shows only the attempt that finished (no `*.abandoned` needed).
    expect((await checkedStream("run-model")).filter((t) => t === "model.started")).toHaveLength(4);
  });

  it("SIGKILL inside an at-least-once tool: it runs once more on a survivor, with the same idempotency key", async () => {
    const { outcome, entries, before, entry, victimPid } = await killInside("run-tool", {
      kind: "tool",
      tool: "fetch_order",
    });
    expect(outcome.result.messages).toEqual((await expectedConformanceRun("run-tool")).messages);
    const completed = before.filter((e) => keyOf(e) !== keyOf(entry)).map(keyOf);
    const summary = checkLedger(entries, { crashes: 1, completed });
    const runs = entries.filter((e) => e.tool === "fetch_order");
    expect(runs.map((e) => e.idempotencyKey)).toEqual(["run-tool:call_fetch", "run-tool:call_fetch"]);
    expect(runs[1]?.pid).not.toBe(victimPid);
    expect(summary.duplicates).toBe(1);
    expect((await checkedStream("run-tool")).filter((t) => t === "tool.started")).toHaveLength(3);
  });

  /** Start `runId`, kill the worker hung after `tool`'s work once its bracket is journaled. */
  async function killAfterJournaledEnd(runId: string, tool: string, callId: string) {
    await writeFile(holdPath, JSON.stringify({ runId, kind: "tool", tool, after: true }));
    await client.start(AGENT, runId, CONFORMANCE_INPUT);
    const { worker } = await until(() => held.get(runId));
    // Kill once the attempt's whole bracket is in the journal (the worker hangs after it).
    await until(
      async () =>
        (await toolEvents(runId, callId)).map(([t]) => t).join() === "tool.started,tool.completed" ||
        undefined,
    );
    await pool.kill(worker, "SIGKILL");
    const outcome = await approveAndFinish(runId);
    await pool.restart(worker);
    return outcome;
  }

  it("SIGKILL after an at-least-once tool's end was journaled, before Restate stored its step: the stream shows both attempts", async () => {
    const runId = "run-tool-end";
    const outcome = await killAfterJournaledEnd(runId, "fetch_order", "call_fetch");
    expect(outcome.result.messages).toEqual((await expectedConformanceRun(runId)).messages);
    // Restate never stored the step: the tool ran again on a survivor, and that attempt (whose
    // result the run used) is journaled after the lost one, not dropped as a replay.
    expect(entriesOf(runId).filter((e) => e.tool === "fetch_order")).toHaveLength(2);
    expect(await toolEvents(runId, "call_fetch")).toEqual([
      ["tool.started", undefined],
      ["tool.completed", false],
      ["tool.started", undefined],
      ["tool.completed", false],
    ]);
  });

  it('SIGKILL after the "once" tool\'s end was journaled, before Restate stored its step: the stream shows the lost attempt, then "outcome unknown"', async () => {
    const runId = "run-once-end";
    const outcome = await killAfterJournaledEnd(runId, "send_email", "call_email");
    // The tool never ran again; the run answered "outcome unknown" and the stream says so too
    // (before: the journaled success only, contradicting the transcript).
    expect(entriesOf(runId).filter((e) => e.tool === "send_email")).toHaveLength(1);
    const email = (outcome.result.messages as Message[]).find(
      (m) => m.role === "tool" && m.toolCallId === "call_email",
    );
    expect(JSON.stringify(email?.content)).toMatch(/unknown/i);
    expect(await toolEvents(runId, "call_email")).toEqual([
      ["tool.started", undefined],
      ["tool.completed", false],
      ["tool.started", undefined],
      ["tool.completed", true],
    ]);
  });

  it('SIGKILL inside the "once" tool: it never runs twice; the model is told its outcome is unknown', async () => {
    const { outcome, entries, before, entry, victimPid } = await killInside("run-once", {
      kind: "tool",
      tool: "send_email",
    });
    const completed = before.filter((e) => keyOf(e) !== keyOf(entry)).map(keyOf);
    const summary = checkLedger(entries, { crashes: 1, completed });
    expect(summary.tools.get("run-once:call_email")).toBe(1);
    expect(summary.duplicates).toBe(0);
    expect(entries.at(-1)?.pid).not.toBe(victimPid);
    // The same run, except the cut call's result: the harness reports its outcome as unknown,
    // and the (pure-function) model's later turns quote that instead of the email receipt.
    const expected = (await expectedConformanceRun("run-once")).messages;
    const got = outcome.result.messages as Message[];
    expect(got.map((m) => m.role)).toEqual(expected.map((m) => m.role));
    const cut = got.findIndex((m) => m.role === "tool" && m.toolCallId === "call_email");
    expect(got.slice(0, cut)).toEqual(expected.slice(0, cut));
    expect(got[cut]).toMatchObject({ isError: true });
    expect(JSON.stringify(got[cut]?.content)).toMatch(/unknown/i);
    expect(got.at(-1)).toEqual(conformanceReply(got.slice(0, -1)).message);
  });

  it("SIGKILL while the run waits for its human approval: approved later, it finishes on a survivor, nothing reruns", async () => {
    const runId = "run-approval";
    await client.start(AGENT, runId, CONFORMANCE_INPUT);
    await until(async () => (await client.status(AGENT, runId))?.phase === "waiting" || undefined);
    const before = entriesOf(runId);
    const victimPid = before.at(-1)?.pid ?? -1;
    const victim = workerOf(victimPid);
    expect(victim).toBeGreaterThanOrEqual(0);
    await pool.kill(victim, "SIGKILL");
    await client.approve(AGENT, runId, conformanceApprovalId(runId), {
      argumentsHash: CONFORMANCE_APPROVAL_HASH,
    });
    const outcome = await client.result(AGENT, runId);
    expect(outcome.state).toBe("completed");
    expect(outcome.result.messages).toEqual((await expectedConformanceRun(runId)).messages);
    const entries = entriesOf(runId);
    const summary = checkLedger(entries, { crashes: 1, completed: before.map(keyOf) });
    expect(summary.duplicates).toBe(0);
    const after = entries.slice(before.length);
    expect(after.map((e) => e.tool ?? e.kind)).toEqual(["deploy", "model"]);
    expect(after.every((e) => e.pid !== victimPid)).toBe(true);
    const types = await checkedStream(runId);
    expect(types.filter((t) => t === "approval.requested")).toHaveLength(1);
    await pool.restart(victim);
  });
});
