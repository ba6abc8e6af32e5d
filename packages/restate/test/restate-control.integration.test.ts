// Driving runs on Restate from outside: a human approval resolved through the client, steering
// across workers, sub-agents invoked as their own workflows in parallel, and a failed model call
// failing the run (journaled once) instead of looping.
import { SteeringPolicy } from "@tinyagents/harness";
import {
  CONFORMANCE_APPROVAL_HASH,
  CONFORMANCE_INPUT,
  conformanceApprovalId,
  expectedConformanceRun,
} from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentEndpoint, listenAgents, RestateAgentClient, restateAgents } from "../src/index.js";
import { type RestateServer, startRestateServer } from "../src/testing/index.js";
import { brokenCalls, childLog, holdStarted, journal, moreAgents, openGate } from "./support/agents.js";
import { quiet, RESTATE_SKIP } from "./support/restate-env.js";

let server: RestateServer | undefined;
let worker: AgentEndpoint | undefined;
let client: RestateAgentClient;

describe.skipIf(RESTATE_SKIP !== undefined)(
  `controlling runs on restate-server${RESTATE_SKIP ? ` (${RESTATE_SKIP})` : ""}`,
  () => {
    beforeAll(async () => {
      server = await startRestateServer({ retryInitialIntervalMs: 20 });
      const services = restateAgents({
        agents: moreAgents,
        events: () => ({ journal }),
        steering: new SteeringPolicy().allow("redirect"),
      });
      worker = await listenAgents(services, { logger: quiet });
      await server.registerDeployment(worker.url);
      client = new RestateAgentClient({ ingressUrl: server.ingressUrl, journal });
    }, 60_000);

    afterAll(async () => {
      openGate();
      await worker?.close();
      await server?.stop();
    });

    it("waits on a durable promise for a human approval that the client resolves", async () => {
      const runId = "run-approve";
      await client.start("approvals", runId, CONFORMANCE_INPUT);
      const waiting = await client.waitForStatus("approvals", runId, "waiting");
      const approvalId = conformanceApprovalId(runId);
      expect(waiting?.waitingFor).toEqual([`approval:${approvalId}`]);
      expect(await client.output("approvals", runId)).toBeUndefined();
      await client.approve("approvals", runId, approvalId, { argumentsHash: CONFORMANCE_APPROVAL_HASH });
      const outcome = await client.result("approvals", runId);
      expect(outcome.state).toBe("completed");
      expect(outcome.result.messages).toEqual((await expectedConformanceRun(runId)).messages);
      const types = (await journal.read(runId)).map((r) => r.event.type);
      expect(types).toContain("approval.requested");
    });

    it("hands a rejection's reason to the model instead of running the tool", async () => {
      const runId = "run-reject";
      await client.start("approvals", runId, CONFORMANCE_INPUT);
      await client.waitForStatus("approvals", runId, "waiting");
      await client.reject("approvals", runId, conformanceApprovalId(runId), "not on a Friday");
      const outcome = await client.result("approvals", runId);
      const deploy = outcome.result.messages.find((m) => m.role === "tool" && m.toolCallId === "call_deploy");
      expect(JSON.stringify(deploy)).toContain("not on a Friday");
      expect(JSON.stringify(deploy)).not.toContain("deployed to staging");
    });

    it("delivers a steering command to the running run, and refuses a kind the policy denies", async () => {
      const runId = "run-steer";
      await client.start("steered", runId, "go");
      await client.waitForStatus("steered", runId, () => holdStarted);
      const receipt = await client.steer("steered", runId, {
        kind: "redirect",
        instruction: "talk about tea",
      });
      expect(receipt.sequence).toBe(0);
      const denied = await client.steer("steered", runId, { kind: "cancel" }).catch((e: unknown) => e);
      expect(TinyAgentsError.isInstance(denied) && denied.code).toBe("steering");
      openGate();
      const outcome = await client.result("steered", runId);
      expect(outcome.result.text).toBe("redirected: talk about tea");
    });

    it("runs sub-agents as their own workflows, in parallel, and rolls their results into the parent", async () => {
      childLog.length = 0;
      const outcome = await client.run("lead", "run-lead", "plan it");
      expect(outcome.state).toBe("completed");
      expect(outcome.result.text).toBe("lead: researcher says: find facts | writer says: draft text");
      const children = outcome.result.children ?? [];
      expect(children.map((c) => c.name).sort()).toEqual(["researcher", "writer"]);
      for (const child of children) {
        const own = await client.output(child.name, child.runId);
        expect(own?.state).toBe("completed"); // it ran as that agent's own workflow
        expect(own?.result.text).toContain(`${child.name} says:`);
      }
      // Both children were running at once (each model call waits until its sibling started).
      expect(childLog.slice(0, 2).sort()).toEqual(["start:researcher", "start:writer"]);
    });

    it("fails the run when a model step fails terminally: journaled once, not retried by Restate", async () => {
      const inProcess = await moreAgents
        .broken()
        .run("hi")
        .catch((e: unknown) => e);
      expect(TinyAgentsError.isInstance(inProcess) && inProcess.code).toBe("provider");
      const callsInProcess = brokenCalls;
      const outcome = await client.run("broken", "run-broken", "hi");
      expect(outcome.state).toBe("failed");
      expect(outcome.error).toMatchObject({ code: "provider" });
      expect(outcome.result.stopReason).toBe("failed");
      expect(brokenCalls - callsInProcess).toBe(callsInProcess); // the harness's own attempts, once
      expect(await client.status("broken", "run-broken")).toMatchObject({
        phase: "failed",
        error: { code: "provider" },
      });
    });
  },
);
