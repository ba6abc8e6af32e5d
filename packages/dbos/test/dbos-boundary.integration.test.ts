// Integration tier (starts Postgres and a DBOS worker in this process; ~10 s).
// Approvals bound to what they approve, and typed, fast errors at the DBOS boundary: every case
// below answered OK, threw an untyped error or hung before (issue 36).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDbosClient, type DbosAgents, type DbosAgentsClient, dbosAgents } from "@tinyagents/dbos";
import { approvalArgumentsHash } from "@tinyagents/harness/middleware";
import {
  CONFORMANCE_APPROVAL_HASH,
  CONFORMANCE_CALLS,
  CONFORMANCE_INPUT,
  conformanceApprovalId,
  createConformanceAgent,
  expectedConformanceRun,
  readLedger,
} from "@tinyagents/harness/testkit";
import { type JsonObject, TinyAgentsError } from "@tinyagents/inference";
import { startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUrl, dbosSkipReason } from "./support/postgres.js";

const skip = dbosSkipReason("dbos-boundary.integration.test");

type Names = "ops" | "strict";
let pg: TestPostgres | undefined;
let worker: DbosAgents<Names> | undefined;
let client: DbosAgentsClient<Names>;
let dir = "";
const ledger = () => join(dir, "ledger.jsonl");
const requested = new Map<string, () => void>();

const deploy = CONFORMANCE_CALLS[2] as { id: string; name: string; arguments: JsonObject };
const deployHash = approvalArgumentsHash(deploy.name, deploy.arguments);

/** Resolves once run `runId` asked for its approval (the worker's live event). */
function approvalRequested(runId: string): Promise<void> {
  return new Promise((resolve) => requested.set(conformanceApprovalId(runId), resolve));
}

/** Resolves once the run took its decision (no approval pending any more). */
async function decisionTaken(runId: string): Promise<void> {
  await client.waitForStatus(runId, (s) => s.pendingApprovals === undefined);
}

/** The typed error `promise` rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<TinyAgentsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!TinyAgentsError.isInstance(error)) throw new Error(`expected a TinyAgentsError, got ${String(error)}`);
  return error;
}

describe.skipIf(skip !== undefined)("approvals and errors at the DBOS boundary", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tinyagents-dbos-boundary-"));
    pg = await startTestPostgres();
    const ops = createConformanceAgent({ ledgerPath: ledger(), modelDelayMs: 0, toolDelayMs: 0 });
    // An agent whose harness refuses every input before its loop (as an unreadable input is).
    const strict = {
      run: async (): Promise<never> => {
        throw new TinyAgentsError(
          "validation",
          "input.messages[0].role must be user, assistant, system or tool",
          {
            details: { field: "input" },
          },
        );
      },
    };
    worker = dbosAgents<Names>({
      agents: { ops: ops.agent, strict },
      systemDatabaseUrl: databaseUrl(pg as TestPostgres, "boundary"),
      executorId: "boundary-worker",
      logLevel: "error",
      onEvent(record) {
        if (record.event.type === "approval.requested") requested.get(record.event.approvalId)?.();
      },
    });
    await worker.launch();
    client = await createDbosClient<Names>({
      systemDatabaseUrl: databaseUrl(pg as TestPostgres, "boundary"),
    });
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await worker?.shutdown();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses an approval for a run that does not exist; the run started later waits for a human", async () => {
    const runId = "pre-approved";
    const early = await failure(
      client.approve(runId, conformanceApprovalId(runId), { argumentsHash: CONFORMANCE_APPROVAL_HASH }),
    );
    expect(early.code).toBe("not_found");
    const asked = approvalRequested(runId);
    await client.start("ops", CONFORMANCE_INPUT, { runId });
    await asked;
    const waiting = await client.status(runId);
    expect(waiting?.state).toBe("PENDING");
    expect(waiting?.pendingApprovals).toEqual([
      {
        approvalId: conformanceApprovalId(runId),
        callId: deploy.id,
        toolName: deploy.name,
        argumentsHash: deployHash,
      },
    ]);
    expect(readLedger(ledger()).filter((e) => e.runId === runId && e.tool === "deploy")).toEqual([]);
    await client.approve(runId, conformanceApprovalId(runId), { argumentsHash: deployHash });
    expect((await client.result(runId)).messages).toEqual((await expectedConformanceRun(runId)).messages);
  });

  it("refuses a wrong approval id, other arguments and a missing argumentsHash, sending nothing", async () => {
    const runId = "bound";
    const asked = approvalRequested(runId);
    await client.start("ops", CONFORMANCE_INPUT, { runId });
    await asked;
    const wrong = await failure(
      client.approve(runId, `${runId}/call_nope`, { argumentsHash: CONFORMANCE_APPROVAL_HASH }),
    );
    expect(wrong.code).toBe("not_found");
    expect(wrong.message).toContain(`pending: ${conformanceApprovalId(runId)}`);
    const changed = await failure(
      client.approve(runId, conformanceApprovalId(runId), {
        argumentsHash: approvalArgumentsHash("deploy", { env: "production" }),
      }),
    );
    expect(changed.code).toBe("conflict");
    // An approval must name the arguments it approves: without the hash it is refused.
    const unbound = await failure(
      client.approve(runId, conformanceApprovalId(runId), {} as { argumentsHash: string }),
    );
    expect(unbound.code).toBe("validation");
    expect(unbound.message).toContain("argumentsHash");
    expect((await client.status(runId))?.pendingApprovals).toHaveLength(1);
    expect(readLedger(ledger()).filter((e) => e.runId === runId && e.tool === "deploy")).toEqual([]);
    await client.reject(runId, conformanceApprovalId(runId), "not today", { argumentsHash: deployHash });
    const result = await client.result(runId);
    expect(JSON.stringify(result.messages)).toContain("not today");
  });

  it("answers a repeated identical decision as the first, refuses another one, and refuses on a finished run", async () => {
    const runId = "repeated";
    const id = conformanceApprovalId(runId);
    const asked = approvalRequested(runId);
    await client.start("ops", CONFORMANCE_INPUT, { runId });
    await asked;
    await client.approve(runId, id, { argumentsHash: CONFORMANCE_APPROVAL_HASH });
    await client.approve(runId, id, { argumentsHash: CONFORMANCE_APPROVAL_HASH }); // a client retrying after a lost answer
    await decisionTaken(runId);
    expect((await failure(client.reject(runId, id, "changed my mind"))).code).toBe("conflict");
    expect((await client.result(runId)).stopReason).toBe("completed");
    await client.approve(runId, id, { argumentsHash: CONFORMANCE_APPROVAL_HASH }); // the same answer once finished
    expect(
      (
        await failure(
          client.approve(runId, `${runId}/call_other`, { argumentsHash: CONFORMANCE_APPROVAL_HASH }),
        )
      ).code,
    ).toBe("not_found");
    expect((await failure(client.signal(runId, `approval:${id}`, { decision: "approve" }))).code).toBe(
      "validation",
    );
  });

  it("refuses a decision on a run that finished without one", async () => {
    const runId = "cancelled-undecided";
    const asked = approvalRequested(runId);
    await client.start("ops", CONFORMANCE_INPUT, { runId });
    await asked;
    await client.cancel(runId);
    const late = await failure(
      client.approve(runId, conformanceApprovalId(runId), { argumentsHash: CONFORMANCE_APPROVAL_HASH }),
    );
    expect(late.code).toBe("conflict");
    expect(late.message).toContain("finished");
  });

  it("keeps the harness's code and message for a refused input, at start or from the worker", async () => {
    for (const input of [42, null, { role: "robot", content: "hi" }]) {
      const refused = await failure(client.start("ops", input as never, { runId: `bad-${String(input)}` }));
      expect(refused.code).toBe("validation");
    }
    expect(await client.status("bad-42")).toBeUndefined(); // nothing was enqueued
    await client.start("strict", "hello", { runId: "strict-1" });
    const refused = await failure(client.result("strict-1"));
    expect(refused.code).toBe("validation");
    expect(refused.message).toContain("role must be user");
    expect((await client.status("strict-1"))?.state).toBe("ERROR");
    // A finished run never reaches another state: waiting for one is refused at once.
    const waited = await failure(client.waitForStatus("strict-1", "PENDING"));
    expect(waited.code).toBe("conflict");
    expect(waited.details).toEqual({ state: "ERROR" });
  });

  it("answers not_found for an unknown agent and an unknown run at once, conflict for a run id reused with another input", async () => {
    const agent = await failure(client.start("nobody" as Names, "hi", { runId: "nobody-1" }));
    expect(agent.code).toBe("not_found");
    expect(await client.status("nobody-1")).toBeUndefined();
    expect((await failure(client.waitForStatus("nobody-1", "SUCCESS"))).code).toBe("not_found");
    const started = Date.now();
    const run = await failure(client.result("never-started"));
    expect(run.code).toBe("not_found");
    expect(Date.now() - started).toBeLessThan(2000);
    await client.start("strict", "same", { runId: "reused" });
    await client.start("strict", "same", { runId: "reused" }); // the same request: the same run
    expect((await failure(client.start("strict", "other", { runId: "reused" }))).code).toBe("conflict");
    expect((await failure(client.start("ops", "same", { runId: "reused" }))).code).toBe("conflict");
  });
});
