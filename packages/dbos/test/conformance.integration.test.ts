/**
 * Issue 18's conformance suite on DBOS: the engine-neutral scenario agent runs in worker child
 * processes (built packages) over a real Postgres. A worker is SIGKILLed at a chosen point — it
 * announces the point and hangs inside the step, so the kill is deterministic — then a worker
 * with the SAME executor id starts again (open-source DBOS's recovery path), or a live worker with
 * another id takes the dead one's runs over. Every run must end with the transcript, usage and
 * cost of an uninterrupted run, and the execution ledger must pass `checkLedger`. Every worker
 * journals the runs' events to one Postgres journal: each run's stream must read like one
 * uninterrupted run (`streamProblems`), a killed attempt closed by `*.abandoned`, or — when its
 * end was journaled but DBOS never recorded its step — followed by the attempt that ran again
 * (issue 36). Kills wait until the journal holds a chosen state, so no test races the flush.
 * Budget: ~35 s on 2 cores (7 tests, a worker start per kill).
 */
import {
  CONFORMANCE_APPROVAL_HASH,
  CONFORMANCE_INPUT,
  checkLedger,
  conformanceApprovalId,
  expectedConformanceRun,
  readLedger,
  streamProblems,
} from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { type DbosCluster, useDbosCluster } from "./support/cluster.js";
import { dbosSkipReason } from "./support/postgres.js";
import { startWorker } from "./support/workers.js";

const skip = dbosSkipReason("conformance.test");

/** Postgres, the DBOS client and the ledger (set up inside the describe: only when it runs). */
let cluster: DbosCluster;
const client = () => cluster.client;

/** The run's ledger entries and what an uninterrupted run ends with. */
async function verdict(runId: string) {
  const result = await client().result(runId);
  const expected = await expectedConformanceRun(runId);
  expect(result.error).toBeUndefined();
  expect(result.stopReason).toBe("completed");
  expect(result.messages).toEqual(expected.messages);
  expect(result.usage).toEqual(expected.usage);
  expect(result.cost).toEqual(expected.cost);
  const entries = readLedger(cluster.ledgerPath).filter((e) => e.runId === runId);
  const stream = await client().events(runId);
  expect(streamProblems(stream)).toEqual([]);
  return { result, entries, types: stream.map((r) => r.event.type) };
}

/** Resolves once the run's journaled events of call `callId` have these types (polled). */
async function journaled(runId: string, callId: string, types: string[]): Promise<void> {
  for (;;) {
    if (equalTypes(callEvents(await client().events(runId), callId), types)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The `model.*` / `tool.*` bracket events of one call, as journaled. */
function callEvents(stream: readonly { event: { type: string } }[], callId: string) {
  return stream
    .map((r) => r.event as { type: string; callId?: string; isError?: boolean })
    .filter(
      (e) => e.callId === callId && /^(model|tool)\.(started|completed|failed|abandoned)$/.test(e.type),
    );
}

const equalTypes = (events: { type: string }[], types: string[]) =>
  events.map((e) => e.type).join() === types.join();

const count = (entries: { kind: string; callId: string }[], kind: string, callId: string) =>
  entries.filter((e) => e.kind === kind && e.callId === callId).length;

describe.skipIf(skip !== undefined)("DBOS conformance: SIGKILL and recovery (worker processes)", () => {
  // Each test runs its own workers, one alive when a run is enqueued, so it knows which one takes it.
  cluster = useDbosCluster("conformance");

  it("an uninterrupted run ends with the expected transcript; each step ran once", async () => {
    const w = await startWorker(cluster.config("exec-plain"), cluster.workers);
    await client().start("ops", CONFORMANCE_INPUT, { runId: "plain" });
    await w.waitFor(`approval ${conformanceApprovalId("plain")}`);
    await client().approve("plain", conformanceApprovalId("plain"), {
      argumentsHash: CONFORMANCE_APPROVAL_HASH,
    });
    const { entries } = await verdict("plain");
    expect(checkLedger(entries, { crashes: 0 }).duplicates).toBe(0);
    expect((await client().status("plain"))?.state).toBe("SUCCESS");
    await w.stop();
  });

  it.each([
    // The model call returned and its events were journaled; DBOS had not recorded its step.
    ["inside a model step, its events journaled", "model:2", "kill-model-2-model-2", "model"],
    // The tool's work ran and `tool.completed` was journaled; DBOS had not recorded its step.
    ["inside an at-least-once tool step, its end journaled", "tool:fetch_order", "call_fetch", "tool"],
  ])(
    "killed %s: the restarted worker (same executor id) runs the call again, and the stream shows both attempts",
    async (_what, killAt, callId, kind) => {
      const runId = `kill-${killAt.replace(":", "-")}`;
      const id = `exec-${runId}`;
      const doomed = await startWorker(cluster.config(id, { killAt }), cluster.workers);
      await client().start("ops", CONFORMANCE_INPUT, { runId });
      // Not approvable up front: a decision answers an approval the run has opened (issue 36).
      await expect(
        client().approve(runId, conformanceApprovalId(runId), { argumentsHash: CONFORMANCE_APPROVAL_HASH }),
      ).rejects.toMatchObject({
        code: "not_found",
      });
      await doomed.waitFor(`killpoint ${killAt}`);
      // Kill once the cut call's whole attempt is in the journal (the kill point hangs after it).
      await journaled(runId, callId, [`${kind}.started`, `${kind}.completed`]);
      await doomed.kill();
      const again = await startWorker(cluster.config(id), cluster.workers);
      await again.waitFor(`approval ${conformanceApprovalId(runId)}`);
      await client().approve(runId, conformanceApprovalId(runId), {
        argumentsHash: CONFORMANCE_APPROVAL_HASH,
      });
      const { entries, types } = await verdict(runId);
      // DBOS never recorded the step: the call ran again, and the run went on with that attempt's
      // result. The stream shows both attempts (once dropped as a replay of the journaled one,
      // issue 36), each closed; nothing else is written twice.
      const stream = callEvents(await client().events(runId), callId);
      expect(stream.map((e) => e.type)).toEqual([
        `${kind}.started`,
        `${kind}.completed`,
        `${kind}.started`,
        `${kind}.completed`,
      ]);
      expect(types.filter((t) => t === "model.started")).toHaveLength(kind === "model" ? 5 : 4);
      expect(types.filter((t) => t === "run.started")).toHaveLength(1);
      const summary = checkLedger(entries, { crashes: 1 });
      // The cut step ran again once (its result was never recorded); nothing else repeated.
      expect(summary.duplicates).toBe(1);
      expect(count(entries, kind, callId)).toBe(2);
      await again.stop();
    },
  );

  it("killed inside an at-least-once tool step before its work: the attempt is closed by tool.abandoned", async () => {
    const runId = "kill-tool-start";
    const id = `exec-${runId}`;
    const doomed = await startWorker(
      cluster.config(id, { killAt: "tool-start:fetch_order" }),
      cluster.workers,
    );
    await client().start("ops", CONFORMANCE_INPUT, { runId });
    await doomed.waitFor("killpoint tool-start:fetch_order");
    await journaled(runId, "call_fetch", ["tool.started"]);
    await doomed.kill();
    const again = await startWorker(cluster.config(id), cluster.workers);
    await again.waitFor(`approval ${conformanceApprovalId(runId)}`);
    await client().approve(runId, conformanceApprovalId(runId), { argumentsHash: CONFORMANCE_APPROVAL_HASH });
    const { entries } = await verdict(runId);
    // The killed attempt is closed in the stream, then the call starts again.
    const stream = callEvents(await client().events(runId), "call_fetch");
    expect(stream.map((e) => e.type)).toEqual([
      "tool.started",
      "tool.abandoned",
      "tool.started",
      "tool.completed",
    ]);
    expect(stream[1]).toMatchObject({ attempt: 1, reason: "worker lost" });
    // The work itself ran once: the killed attempt never reached it.
    expect(checkLedger(entries, { crashes: 1 }).duplicates).toBe(0);
    expect(count(entries, "tool", "call_fetch")).toBe(1);
    await again.stop();
  });

  it("killed inside a once tool step: the tool never runs again", async () => {
    const runId = "kill-once";
    const doomed = await startWorker(
      cluster.config("exec-once", { killAt: "tool:send_email" }),
      cluster.workers,
    );
    await client().start("ops", CONFORMANCE_INPUT, { runId });
    await doomed.waitFor("killpoint tool:send_email");
    await journaled(runId, "call_email", ["tool.started", "tool.completed"]);
    await doomed.kill();
    const again = await startWorker(cluster.config("exec-once"), cluster.workers);
    await again.waitFor(`approval ${conformanceApprovalId(runId)}`);
    await client().approve(runId, conformanceApprovalId(runId), { argumentsHash: CONFORMANCE_APPROVAL_HASH });
    const result = await client().result(runId);
    expect(result?.stopReason).toBe("completed");
    expect(streamProblems(await client().events(runId))).toEqual([]);
    const entries = readLedger(cluster.ledgerPath).filter((e) => e.runId === runId);
    checkLedger(entries, { crashes: 1 });
    expect(count(entries, "tool", "call_email")).toBe(1);
    // Its intent was journaled, its result was not: the call is answered "outcome unknown" (the
    // one place where the transcript differs from an uninterrupted run's), and the run goes on.
    const emailMessage = result?.messages.find((m) => m.role === "tool" && m.toolCallId === "call_email");
    expect(emailMessage === undefined ? "" : text(emailMessage)).toContain(
      'the outcome of tool "send_email" (call call_email) is unknown',
    );
    expect(count(entries, "tool", "call_deploy")).toBe(1);
    // The stream says so too: the killed attempt's journaled success, then the answer the run used.
    const email = callEvents(await client().events(runId), "call_email");
    expect(email.map((e) => [e.type, e.isError])).toEqual([
      ["tool.started", undefined],
      ["tool.completed", false],
      ["tool.started", undefined],
      ["tool.completed", true],
    ]);
    await again.stop();
  });

  it("killed during the human wait: the restarted worker resumes the wait; the approval completes it", async () => {
    const runId = "kill-wait";
    const doomed = await startWorker(cluster.config("exec-wait"), cluster.workers);
    await client().start("ops", CONFORMANCE_INPUT, { runId });
    await doomed.waitFor(`approval ${conformanceApprovalId(runId)}`);
    await doomed.kill();
    const again = await startWorker(cluster.config("exec-wait"), cluster.workers);
    await client().approve(runId, conformanceApprovalId(runId), { argumentsHash: CONFORMANCE_APPROVAL_HASH });
    const { entries } = await verdict(runId);
    // Every step before the wait was journaled: none ran again.
    expect(checkLedger(entries, { crashes: 1 }).duplicates).toBe(0);
    await again.stop();
  });

  it("a live worker with another executor id takes a dead worker's run over", async () => {
    const runId = "takeover";
    const doomed = await startWorker(cluster.config("exec-doomed"), cluster.workers);
    await client().start("ops", CONFORMANCE_INPUT, { runId });
    await doomed.waitFor(`approval ${conformanceApprovalId(runId)}`);
    await doomed.kill();
    const taker = await startWorker(cluster.config("exec-taker"), cluster.workers);
    taker.command("takeover exec-doomed");
    expect(await taker.waitFor("took-over")).toBe(`took-over ${JSON.stringify([runId])}`);
    await client().approve(runId, conformanceApprovalId(runId), { argumentsHash: CONFORMANCE_APPROVAL_HASH });
    const { entries } = await verdict(runId);
    expect(checkLedger(entries, { crashes: 1 }).duplicates).toBe(0);
    expect((await client().status(runId))?.executorId).toBe("exec-taker");
    await taker.stop();
  });
});
