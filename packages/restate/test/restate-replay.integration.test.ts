// A run that Restate suspends (the server's inactivity timeout is 100 ms here) while it waits for
// a human, and replays from its journal once the approval arrives: completed steps are not run
// again, and the worker's live sinks do not receive the replayed part's events a second time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentObservation } from "@tinyagents/harness";
import type { ObservationSink } from "@tinyagents/harness/observability";
import {
  CONFORMANCE_APPROVAL_HASH,
  CONFORMANCE_INPUT,
  conformanceApprovalId,
  createConformanceAgent,
  expectedConformanceRun,
  readLedger,
} from "@tinyagents/harness/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentEndpoint, listenAgents, RestateAgentClient, restateAgents } from "../src/index.js";
import { type RestateServer, startRestateServer } from "../src/testing/index.js";
import { journal } from "./support/agents.js";
import { quiet, RESTATE_SKIP } from "./support/restate-env.js";

let server: RestateServer | undefined;
let worker: AgentEndpoint | undefined;
let client: RestateAgentClient;
const delivered: AgentObservation[] = [];
const recorder: ObservationSink = { write: (o) => void delivered.push(o) };
const dir = mkdtempSync(join(tmpdir(), "tinyagents-restate-replay-"));
const ledgerPath = join(dir, "ledger.jsonl");
const agents = {
  approvals: () => createConformanceAgent({ modelDelayMs: 0, toolDelayMs: 0, ledgerPath }).agent,
};

describe.skipIf(RESTATE_SKIP !== undefined)(
  `replay after suspension${RESTATE_SKIP ? ` (${RESTATE_SKIP})` : ""}`,
  () => {
    beforeAll(async () => {
      server = await startRestateServer({
        retryInitialIntervalMs: 20,
        env: { RESTATE_WORKER__INVOKER__INACTIVITY_TIMEOUT: "100ms" },
      });
      const services = restateAgents({ agents, events: () => ({ journal, sinks: [recorder] }) });
      worker = await listenAgents(services, { logger: quiet });
      await server.registerDeployment(worker.url);
      client = new RestateAgentClient({ ingressUrl: server.ingressUrl, journal });
    }, 60_000);

    afterAll(async () => {
      await worker?.close();
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("finishes a suspended run by replay, without re-running steps or re-delivering events", async () => {
      const runId = "run-suspended";
      const { invocationId } = await client.start("approvals", runId, CONFORMANCE_INPUT);
      for (;;) {
        const [row] =
          (await server?.query<{ status: string }>(
            `SELECT status FROM sys_invocation WHERE id = '${invocationId}'`,
          )) ?? [];
        if (row?.status === "suspended") break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await client.approve("approvals", runId, conformanceApprovalId(runId), {
        argumentsHash: CONFORMANCE_APPROVAL_HASH,
      });
      const outcome = await client.result("approvals", runId);
      expect(outcome.result.messages).toEqual((await expectedConformanceRun(runId)).messages);
      // Every model call and tool ran once although the run was replayed after the wait.
      const ledger = readLedger(ledgerPath).map((e) => (e.kind === "tool" ? `tool:${e.tool}` : "model"));
      expect(ledger).toEqual([
        "model",
        "tool:fetch_order",
        "model",
        "tool:send_email",
        "model",
        "tool:deploy",
        "model",
      ]);
      const mine = delivered.filter((o) => o.rootRunId === runId);
      const offsets = mine.map((o) => o.offset);
      expect(new Set(offsets).size).toBe(offsets.length);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      expect(mine.filter((o) => o.event.type === "run.started")).toHaveLength(1);
      expect(mine.filter((o) => o.event.type === "approval.requested")).toHaveLength(1);
      expect(mine.at(-1)?.event.type).toBe("run.completed");
      expect(mine.filter((o) => o.event.type === "journal.dropped")).toEqual([]);
      expect((await journal.read(runId)).map((o) => o.offset)).toEqual(offsets);
    });
  },
);
