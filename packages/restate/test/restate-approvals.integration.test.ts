// Integration tier (starts restate-server and a worker endpoint in this process; ~10 s).
// Approvals bound to what they approve, and typed, fast errors at the Restate boundary: every
// case below answered OK, blocked or lost its code before (issue 36).
import { connect } from "@restatedev/restate-sdk-clients";
import { SteeringPolicy } from "@tinyagents/harness";
import { approvalArgumentsHash } from "@tinyagents/harness/middleware";
import {
  CONFORMANCE_APPROVAL_HASH,
  CONFORMANCE_CALLS,
  CONFORMANCE_INPUT,
  conformanceApprovalId,
  expectedConformanceRun,
} from "@tinyagents/harness/testkit";
import { type JsonObject, TinyAgentsError } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentEndpoint, listenAgents, RestateAgentClient, restateAgents } from "../src/index.js";
import { type RestateServer, startRestateServer } from "../src/testing/index.js";
import { journal, moreAgents } from "./support/agents.js";
import { quiet, RESTATE_SKIP } from "./support/restate-env.js";

let server: RestateServer | undefined;
let worker: AgentEndpoint | undefined;
let client: RestateAgentClient;
const services = restateAgents({
  agents: moreAgents,
  events: () => ({ journal }),
  steering: new SteeringPolicy().allow("redirect"),
});

const deploy = CONFORMANCE_CALLS[2] as { id: string; name: string; arguments: JsonObject };
const deployHash = approvalArgumentsHash(deploy.name, deploy.arguments);

/** The typed error `promise` rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<TinyAgentsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!TinyAgentsError.isInstance(error)) throw new Error(`expected a TinyAgentsError, got ${String(error)}`);
  return error;
}

describe.skipIf(RESTATE_SKIP !== undefined)(
  `approvals and errors at the Restate boundary${RESTATE_SKIP ? ` (${RESTATE_SKIP})` : ""}`,
  () => {
    beforeAll(async () => {
      server = await startRestateServer({ retryInitialIntervalMs: 20 });
      worker = await listenAgents(services, { logger: quiet });
      await server.registerDeployment(worker.url);
      client = new RestateAgentClient({ ingressUrl: server.ingressUrl, journal });
    }, 60_000);

    afterAll(async () => {
      await worker?.close();
      await server?.stop();
    });

    it("refuses an approval sent before its run exists; the run started later still waits for a human", async () => {
      const runId = "pre-approved";
      const early = await failure(
        client.approve("approvals", runId, conformanceApprovalId(runId), {
          argumentsHash: CONFORMANCE_APPROVAL_HASH,
        }),
      );
      expect(early.code).toBe("not_found");
      expect(early.message).toContain("has not started");
      await client.start("approvals", runId, CONFORMANCE_INPUT);
      const waiting = await client.waitForStatus("approvals", runId, "waiting");
      expect(waiting?.waitingFor).toEqual([`approval:${conformanceApprovalId(runId)}`]);
      expect(waiting?.pendingApprovals).toEqual([
        {
          approvalId: conformanceApprovalId(runId),
          callId: deploy.id,
          toolName: deploy.name,
          argumentsHash: deployHash,
        },
      ]);
      expect(await client.output("approvals", runId)).toBeUndefined();
      await client.approve("approvals", runId, conformanceApprovalId(runId), { argumentsHash: deployHash });
      const outcome = await client.result("approvals", runId);
      expect(outcome.result.messages).toEqual((await expectedConformanceRun(runId)).messages);
    });

    it("refuses a wrong approval id, other arguments and a missing argumentsHash, changing nothing; the event carries the hash", async () => {
      const runId = "bound";
      await client.start("approvals", runId, CONFORMANCE_INPUT);
      await client.waitForStatus("approvals", runId, "waiting");
      const wrong = await failure(
        client.approve("approvals", runId, `${runId}/call_nope`, {
          argumentsHash: CONFORMANCE_APPROVAL_HASH,
        }),
      );
      expect(wrong.code).toBe("not_found");
      expect(wrong.message).toContain(`pending: ${conformanceApprovalId(runId)}`);
      const changed = await failure(
        client.approve("approvals", runId, conformanceApprovalId(runId), {
          argumentsHash: approvalArgumentsHash("deploy", { env: "production" }),
        }),
      );
      expect(changed.code).toBe("conflict");
      // An approval must name the arguments it approves: the client refuses one without the hash,
      // and so does the worker for a caller that goes straight to the ingress.
      const unbound = await failure(
        client.approve("approvals", runId, conformanceApprovalId(runId), {} as { argumentsHash: string }),
      );
      expect(unbound.code).toBe("validation");
      expect(unbound.message).toContain("argumentsHash");
      const raw = await connect({ url: (server as RestateServer).ingressUrl })
        .workflowClient<{ approve(ctx: unknown, body: { approvalId: string }): Promise<void> }>(
          { name: "tinyagents.agent.approvals" },
          runId,
        )
        .approve({ approvalId: conformanceApprovalId(runId) })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(String(raw)).toContain("argumentsHash");
      expect((await client.status("approvals", runId))?.phase).toBe("waiting");
      const requested = (await journal.read(runId)).find((r) => r.event.type === "approval.requested");
      expect(requested?.event).toMatchObject({ argumentsHash: deployHash });
      await client.approve("approvals", runId, conformanceApprovalId(runId), { argumentsHash: deployHash });
      expect((await client.result("approvals", runId)).state).toBe("completed");
    });

    it("answers a repeated identical decision as the first, refuses a different one, and refuses on a finished run", async () => {
      const runId = "repeated";
      await client.start("approvals", runId, CONFORMANCE_INPUT);
      await client.waitForStatus("approvals", runId, "waiting");
      const id = conformanceApprovalId(runId);
      await client.approve("approvals", runId, id, { argumentsHash: CONFORMANCE_APPROVAL_HASH });
      await client.approve("approvals", runId, id, { argumentsHash: CONFORMANCE_APPROVAL_HASH }); // a client retrying after a lost answer
      expect((await failure(client.reject("approvals", runId, id, "changed my mind"))).code).toBe("conflict");
      expect((await client.result("approvals", runId)).state).toBe("completed");
      await client.approve("approvals", runId, id, { argumentsHash: CONFORMANCE_APPROVAL_HASH }); // still the same answer once finished
      expect(
        (
          await failure(
            client.approve("approvals", runId, `${runId}/call_other`, {
              argumentsHash: CONFORMANCE_APPROVAL_HASH,
            }),
          )
        ).code,
      ).toBe("not_found");
      // An approval cannot be slipped in through the generic signal handler.
      const signalled = await failure(client.signal("approvals", "sneaky", `approval:sneaky/${deploy.id}`));
      expect(signalled.code).toBe("validation");
    });

    it("fails fast with unavailable while every worker is down, and the late decision changes nothing", async () => {
      const runId = "workers-down";
      await client.start("approvals", runId, CONFORMANCE_INPUT);
      await client.waitForStatus("approvals", runId, "waiting");
      const port = worker?.port;
      await worker?.close();
      const started = Date.now();
      const down = await failure(
        client.reject("approvals", runId, conformanceApprovalId(runId), "late", { timeoutMs: 800 }),
      );
      expect(down.code).toBe("unavailable");
      expect(Date.now() - started).toBeLessThan(3000);
      worker = await listenAgents(services, { logger: quiet, ...(port === undefined ? {} : { port }) });
      // Restate still delivers the queued rejection once a worker is up: wait until it ran.
      for (;;) {
        const open = await server?.query(
          `SELECT id FROM sys_invocation WHERE target_handler_name = 'reject' AND target_service_key = '${runId}' AND status != 'completed'`,
        );
        if (open?.length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // It reached the worker after its deadline: refused, the run still waits, an approval applies.
      expect((await client.status("approvals", runId))?.phase).toBe("waiting");
      await client.approve("approvals", runId, conformanceApprovalId(runId), {
        argumentsHash: CONFORMANCE_APPROVAL_HASH,
      });
      const outcome = await client.result("approvals", runId);
      expect(outcome.result.messages).toEqual((await expectedConformanceRun(runId)).messages);
      expect((await client.result("approvals", runId)).state).toBe("completed");
    });

    it("keeps the harness's code and message for a refused input, and the status reads failed", async () => {
      for (const [runId, input] of [
        ["bad-number", 42],
        ["bad-message", { role: "robot", content: "hi" }],
        ["bad-null", null],
      ] as const) {
        await client.start("approvals", runId, input as never);
        const refused = await failure(client.result("approvals", runId));
        expect(refused.code).toBe("validation");
        expect(refused.message).not.toContain("Restate answered");
        const status = await client.waitForStatus("approvals", runId, () => true);
        expect(status).toMatchObject({ phase: "failed", error: { code: "validation" } });
        // A finished run never reaches another phase: waiting for one is refused at once.
        expect((await failure(client.waitForStatus("approvals", runId, "waiting"))).code).toBe("conflict");
      }
    });

    it("answers not_found for an unknown agent and an unknown run, conflict for a run id reused with another input", async () => {
      const agent = await failure(client.start("nobody", "r1", "hi"));
      expect(agent.code).toBe("not_found");
      const queued = await client.enqueue("thread-x", "nobody", "r2", "hi");
      const onThread = await failure(queued.result());
      expect(onThread.code).toBe("not_found");
      expect(onThread.message).toContain('unknown agent "nobody"');
      const run = await failure(client.result("approvals", "never-started"));
      expect(run.code).toBe("not_found");
      expect(await client.status("approvals", "never-started")).toBeUndefined();
      // Waiting for the status of a run never started, or of an unknown agent, ends at once.
      const waited = await failure(client.waitForStatus("approvals", "never-started", "running"));
      expect(waited.code).toBe("not_found");
      expect((await failure(client.waitForStatus("nobody", "r1", "running"))).code).toBe("not_found");
      await client.start("approvals", "reused", CONFORMANCE_INPUT);
      await client.waitForStatus("approvals", "reused", () => true);
      expect((await client.start("approvals", "reused", CONFORMANCE_INPUT)).status).toBe(
        "PreviouslyAccepted",
      );
      const reused = await failure(client.start("approvals", "reused", "something else"));
      expect(reused.code).toBe("conflict");
    });

    it("a run id reused with another input before the run wrote its status is conflict (another client, later)", async () => {
      const runId = "reused-early";
      const port = worker?.port;
      await worker?.close(); // no worker: the run is accepted but writes no status yet
      expect((await client.start("approvals", runId, CONFORMANCE_INPUT)).status).toBe("Accepted");
      const other = new RestateAgentClient({
        ingressUrl: (server as RestateServer).ingressUrl,
        journal,
        decisionTimeoutMs: 30_000,
      });
      const second = failure(other.start("approvals", runId, "something else"));
      const retry = other.start("approvals", runId, CONFORMANCE_INPUT);
      // Both later starts are past Restate's dedup and now wait on the run's status handler.
      for (;;) {
        const pending = await server?.query(
          `SELECT id FROM sys_invocation WHERE target_handler_name = 'status' AND target_service_key = '${runId}' AND status != 'completed'`,
        );
        if ((pending?.length ?? 0) >= 2) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      worker = await listenAgents(services, { logger: quiet, ...(port === undefined ? {} : { port }) });
      expect((await second).code).toBe("conflict");
      expect((await retry).status).toBe("PreviouslyAccepted");
      const waiting = await client.waitForStatus("approvals", runId, "waiting");
      expect(waiting?.pendingApprovals?.[0]?.approvalId).toBe(conformanceApprovalId(runId)); // the first input's run
    });
  },
);
