/**
 * dbosAgents + createDbosClient in one process over a real Postgres: a run end to end (the
 * transcript, usage and cost of the in-process loop), approval and rejection sent as DBOS
 * messages, idempotent start by run id, per-thread ordering through the partitioned queue, and
 * journal back-pressure (a slow journal with a small queue loses nothing).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDbosClient, type DbosAgents, type DbosAgentsClient, dbosAgents } from "@tinyagents/dbos";
import {
  createAgent,
  InMemoryEventJournal,
  resumeSignalName,
  SteeringPolicy,
  tool,
} from "@tinyagents/harness";
import {
  CONFORMANCE_APPROVAL_HASH,
  CONFORMANCE_INPUT,
  checkLedger,
  conformanceApprovalId,
  createConformanceAgent,
  expectedConformanceRun,
  readLedger,
  streamProblems,
} from "@tinyagents/harness/testkit";
import {
  assistant,
  type ChatModel,
  type ModelRequest,
  type ModelResponse,
  text,
  usage,
} from "@tinyagents/inference";
import { startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUrl, dbosSkipReason } from "./support/postgres.js";

const skip = dbosSkipReason("dbos-agents.test");

let pg: TestPostgres | undefined;
type Names = "ops" | "auto" | "lead" | "researcher" | "holder";
let worker: DbosAgents<Names> | undefined;
let client: DbosAgentsClient<Names> | undefined;
let dir = "";
const approvals = new Map<string, () => void>();
const ledger = () => join(dir, "ledger.jsonl");
const journal = new InMemoryEventJournal();
/** While set, each journal write of the worker takes this long (storage slower than the runs). */
let journalDelayMs = 0;
/** The worker's view of `journal`: the same store, written slowly on demand. */
const workerJournal = Object.assign(Object.create(journal) as InMemoryEventJournal, {
  appendMany: async (records: Parameters<InMemoryEventJournal["appendMany"]>[0]) => {
    if (journalDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, journalDelayMs));
    await journal.appendMany(records);
  },
});

/** A model that answers from the transcript alone: `reply(messages)`. */
function modelOf(reply: (request: ModelRequest) => ModelResponse): ChatModel {
  return { provider: "test", modelId: "test-1", invoke: async (request) => reply(request) };
}

/** The lead asks two researchers in parallel, then joins their answers. */
function leadAgent() {
  const researcher = createAgent({
    model: modelOf((request) => {
      const question = text(request.messages.filter((m) => m.role === "user").at(-1) ?? assistant(""));
      return {
        message: assistant(`notes on ${question}`),
        finishReason: "stop",
        usage: usage({ inputTokens: 10, outputTokens: 5 }),
      };
    }),
  });
  const lead = createAgent({
    model: modelOf((request) => {
      const answers = request.messages.filter((m) => m.role === "tool").map((m) => text(m));
      if (answers.length === 0) {
        return {
          message: assistant("Asking.", [
            { id: "ask_a", name: "researcher", arguments: { input: "alpha" } },
            { id: "ask_b", name: "researcher", arguments: { input: "beta" } },
          ]),
          finishReason: "tool_calls",
          usage: usage({ inputTokens: 20, outputTokens: 8 }),
        };
      }
      return {
        message: assistant(`Joined: ${answers.join(" + ")}`),
        finishReason: "stop",
        usage: usage({ inputTokens: 30, outputTokens: 9 }),
      };
    }),
    tools: [researcher.asTool({ name: "researcher", description: "Researches a topic" })],
  });
  return { lead, researcher };
}

/** What the holder agent's tool saw: it started, and its signal aborted (the worker shut down). */
let holdStarted = (): void => undefined;
const hold = {
  started: new Promise<void>((resolve) => {
    holdStarted = resolve;
  }),
  aborted: false,
  finishedWork: false,
};

/** An agent whose one tool holds until its signal aborts. */
function holderAgent() {
  const holdTool = tool({
    name: "hold",
    description: "Holds until cancelled",
    inputSchema: { type: "object", properties: {} },
    execute: async (_args, { signal }) => {
      holdStarted();
      // Holds until the signal aborts (a shutdown that never aborts fails the test by its timeout).
      await new Promise<void>((resolve) => {
        signal?.addEventListener("abort", () => {
          hold.aborted = true;
          resolve();
        });
      });
      if (signal?.aborted !== true) hold.finishedWork = true;
      return "held";
    },
  });
  return createAgent({
    model: modelOf((request) =>
      request.messages.some((m) => m.role === "tool")
        ? { message: assistant("done"), finishReason: "stop" }
        : {
            message: assistant("", [{ id: "hold_1", name: "hold", arguments: {} }]),
            finishReason: "tool_calls",
          },
    ),
    tools: [holdTool],
  });
}

function approvalRequested(runId: string): Promise<void> {
  return new Promise((resolve) => approvals.set(conformanceApprovalId(runId), resolve));
}

describe.skipIf(skip !== undefined)("dbosAgents on DBOS + Postgres (one process)", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tinyagents-dbos-"));
    pg = await startTestPostgres();
    const ops = createConformanceAgent({ ledgerPath: ledger(), modelDelayMs: 0, toolDelayMs: 0 });
    const auto = createConformanceAgent({
      ledgerPath: ledger(),
      modelDelayMs: 5,
      toolDelayMs: 5,
      autoApprove: true,
    });
    const { lead, researcher } = leadAgent();
    worker = dbosAgents<Names>({
      agents: { ops: ops.agent, auto: auto.agent, lead, researcher, holder: holderAgent() },
      systemDatabaseUrl: databaseUrl(pg as TestPostgres, "agents"),
      executorId: "test-worker",
      logLevel: "error",
      journal: workerJournal,
      maxJournalQueue: 4,
      steering: SteeringPolicy.allowAll(),
      onEvent(record) {
        if (record.event.type === "approval.requested") approvals.get(record.event.approvalId)?.();
      },
    });
    await worker.launch();
    client = await createDbosClient<Names>({
      systemDatabaseUrl: databaseUrl(pg as TestPostgres, "agents"),
      journal,
    });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await worker?.shutdown();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs an agent end to end: approval via a DBOS message, the in-process transcript, usage and cost", async () => {
    const asked = approvalRequested("e2e");
    await client?.start("ops", CONFORMANCE_INPUT, { runId: "e2e" });
    await asked;
    expect((await client?.status("e2e"))?.state).toBe("PENDING");
    await client?.approve("e2e", conformanceApprovalId("e2e"), { argumentsHash: CONFORMANCE_APPROVAL_HASH });
    await client?.approve("e2e", conformanceApprovalId("e2e"), { argumentsHash: CONFORMANCE_APPROVAL_HASH }); // a repeat is a no-op
    const result = await client?.result("e2e");
    const expected = await expectedConformanceRun("e2e");
    expect(result?.stopReason).toBe("completed");
    expect(result?.messages).toEqual(expected.messages);
    expect(result?.usage).toEqual(expected.usage);
    expect(result?.cost).toEqual(expected.cost);
    expect(result?.cost.total).toBeGreaterThan(0);
    expect(result?.resolvedModel?.providerModelId).toBe("conformance-1");
    const status = await client?.status("e2e");
    expect(status).toMatchObject({ runId: "e2e", agent: "ops", state: "SUCCESS", executorId: "test-worker" });
    // Starting the same run id again starts nothing: same result, no new executions.
    const before = readLedger(ledger()).filter((e) => e.runId === "e2e").length;
    await client?.start("ops", CONFORMANCE_INPUT, { runId: "e2e" });
    expect((await client?.result("e2e"))?.messages).toEqual(expected.messages);
    expect(readLedger(ledger()).filter((e) => e.runId === "e2e")).toHaveLength(before);
    expect(
      checkLedger(
        readLedger(ledger()).filter((e) => e.runId === "e2e"),
        { crashes: 0 },
      ).duplicates,
    ).toBe(0);
    expect(await client?.status("no-such-run")).toBeUndefined();
    // The run's events, from the shared journal the worker wrote to.
    const events = (await client?.events("e2e")) ?? [];
    const types = events.map((o) => o.event.type);
    expect(types).toContain("approval.requested");
    expect(types.filter((t) => t === "model.completed")).toHaveLength(4);
    expect(events.map((o) => o.offset)).toEqual(events.map((_, i) => (events[0]?.offset ?? 0) + i));
  });

  it("a slow journal with a small queue loses nothing: runs wait for it (no journal.dropped)", async () => {
    journalDelayMs = 40; // every write 40 ms, a queue of 4: steps emit faster than that
    try {
      const ids = ["slow-1", "slow-2", "slow-3", "slow-4", "slow-5", "slow-6"];
      await Promise.all(ids.map((runId) => client?.start("auto", CONFORMANCE_INPUT, { runId })));
      const results = await Promise.all(ids.map((runId) => client?.result(runId)));
      expect(results.map((r) => r?.stopReason)).toEqual(ids.map(() => "completed"));
      for (const runId of ids) {
        const events = (await client?.events(runId)) ?? [];
        expect(streamProblems(events)).toEqual([]); // journal.dropped would be one
        expect(events.filter((o) => o.event.type === "model.completed")).toHaveLength(4);
        expect(events.at(-1)?.event.type).toBe("run.completed");
      }
    } finally {
      journalDelayMs = 0;
    }
  });

  it("a rejection reaches the model; the rejected tool never runs", async () => {
    const asked = approvalRequested("rejected");
    await client?.start("ops", CONFORMANCE_INPUT, { runId: "rejected" });
    await asked;
    await client?.reject("rejected", conformanceApprovalId("rejected"), "staging is frozen today");
    const result = await client?.result("rejected");
    expect(result?.stopReason).toBe("completed");
    const toolMessages = (result?.messages ?? []).filter((m) => m.role === "tool").map((m) => text(m));
    expect(toolMessages.at(-1)).toContain("staging is frozen today");
    const deploys = readLedger(ledger()).filter((e) => e.runId === "rejected" && e.tool === "deploy");
    expect(deploys).toEqual([]);
  });

  it("runs of one thread execute one at a time, in the order they were started", async () => {
    const runs = ["t1-a", "t1-b", "t1-c"];
    for (const runId of runs) await client?.start("auto", CONFORMANCE_INPUT, { runId, threadId: "t1" });
    await client?.start("auto", CONFORMANCE_INPUT, { runId: "t2-a", threadId: "t2" });
    for (const runId of [...runs, "t2-a"])
      expect((await client?.result(runId))?.stopReason).toBe("completed");
    // The ledger is appended in execution order: each t1 run's executions form one block, in order.
    const order = readLedger(ledger())
      .filter((e) => e.runId.startsWith("t1-"))
      .map((e) => e.runId);
    const blocks = order.filter((runId, i) => i === 0 || order[i - 1] !== runId);
    expect(blocks).toEqual(runs);
    expect((await client?.status("t1-b"))?.threadId).toBe("t1");
  });

  it("sub-agents of a registered agent run as DBOS child workflows of that agent, rolled into the parent", async () => {
    await client?.start("lead", "Research alpha and beta.", { runId: "lead-1" });
    const result = await client?.result("lead-1");
    expect(result?.stopReason).toBe("completed");
    expect(text(result?.messages.at(-1) ?? assistant(""))).toBe("Joined: notes on alpha + notes on beta");
    const children = result?.children ?? [];
    expect(children.map((c) => c.name)).toEqual(["researcher", "researcher"]);
    // Each child is its own workflow of the researcher agent (started by the parent's workflow).
    for (const child of children) {
      expect(await client?.status(child.runId)).toMatchObject({
        agent: "researcher",
        state: "SUCCESS",
        parentRunId: "lead-1",
      });
    }
    // The parent's totals include the children's: 2 lead calls + 2 researcher calls.
    expect(result?.usage.inputTokens).toBe(20 + 30 + 10 + 10);
  });

  it("a steering command sent during the approval wait reaches the run before its next model call", async () => {
    const asked = approvalRequested("steered");
    await client?.start("ops", CONFORMANCE_INPUT, { runId: "steered" });
    await asked;
    await client?.steer("steered", { kind: "redirect", instruction: "Mention ticket OPS-7 in the summary." });
    await expect(client?.steer("steered", { kind: "jump" } as never)).rejects.toMatchObject({
      code: "validation",
    });
    await client?.approve("steered", conformanceApprovalId("steered"), {
      argumentsHash: CONFORMANCE_APPROVAL_HASH,
    });
    const result = await client?.result("steered");
    expect(result?.stopReason).toBe("completed");
    const users = (result?.messages ?? []).filter((m) => m.role === "user").map((m) => text(m));
    expect(users).toHaveLength(2);
    expect(users[1]).toContain("Mention ticket OPS-7 in the summary.");
    // Taken before the last model call: it comes after the deploy result, before the final answer.
    const roles = (result?.messages ?? []).map((m) => m.role);
    expect(roles.slice(-3)).toEqual(["tool", "user", "assistant"]);
  });

  it("a steering pause makes the run wait for resume (status.resumeSignal); client.resume continues the same workflow to the uninterrupted transcript", async () => {
    const runId = "paused";
    const asked = approvalRequested(runId);
    await client?.start("ops", CONFORMANCE_INPUT, { runId });
    await asked;
    await client?.steer(runId, { kind: "pause", reason: "operator look" });
    // Waiting for an approval is not waiting for resume.
    await expect(client?.resume(runId)).rejects.toMatchObject({ code: "conflict" });
    await client?.approve(runId, conformanceApprovalId(runId), { argumentsHash: CONFORMANCE_APPROVAL_HASH });
    const status = await client?.waitForStatus(runId, (s) => s.resumeSignal !== undefined);
    expect(status?.resumeSignal).toBe(resumeSignalName(runId, 1));
    expect(status?.state).toBe("PENDING");
    await expect(client?.resume(runId, { approve: true } as never)).rejects.toMatchObject({
      code: "validation",
    });
    await client?.resume(runId);
    const result = await client?.result(runId);
    expect(result?.stopReason).toBe("completed");
    expect(result?.messages).toEqual((await expectedConformanceRun(runId)).messages);
    expect((await client?.status(runId))?.resumeSignal).toBeUndefined();
    const types = (await journal.read(runId)).map((r) => r.event.type);
    expect(types.indexOf("run.resumed")).toBeGreaterThan(types.indexOf("run.interrupted"));
  });

  it("refuses a second registration in the process, and a takeover of its own executor id", async () => {
    expect(() =>
      dbosAgents({ agents: { ops: createConformanceAgent().agent }, systemDatabaseUrl: "unused" }),
    ).toThrow(/already called in this process/);
    await expect(worker?.takeOver("test-worker")).rejects.toMatchObject({ code: "validation" });
    expect(await worker?.takeOver("no-such-executor")).toEqual([]);
  });

  it("a cancelled run's result rejects with code cancelled", async () => {
    const asked = approvalRequested("cancelled");
    await client?.start("ops", CONFORMANCE_INPUT, { runId: "cancelled" });
    await asked;
    await client?.cancel("cancelled");
    await expect(client?.result("cancelled")).rejects.toMatchObject({ code: "cancelled" });
    expect((await client?.status("cancelled"))?.state).toBe("CANCELLED");
  });

  // Last: it shuts the worker down (afterAll's shutdown gets the same promise).
  it("shutdown aborts the runs the process is executing and waits for them; the run stays pending", async () => {
    await client?.start("holder", "hold on", { runId: "held" });
    await hold.started;
    const started = Date.now();
    await worker?.shutdown();
    expect(hold.aborted).toBe(true);
    expect(hold.finishedWork).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000); // not the settle bound: the run stopped
    expect((await client?.status("held"))?.state).toBe("PENDING"); // a restarted worker recovers it
    // The abort is not recorded in the journal either: the stream stops where DBOS stopped.
    const types = (await journal.read("held")).map((r) => r.event.type);
    expect(types).toContain("tool.started");
    expect(types.filter((t) => t.startsWith("run.") && t !== "run.started")).toEqual([]);
  });
});
