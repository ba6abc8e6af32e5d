// A run paused by steering on Restate does not end: it waits on its resume signal (a durable
// promise), shows phase "paused", and `client.resume` continues the same workflow to completion.
import { InMemoryEventJournal, resumeSignalName, SteeringPolicy } from "@tinyagents/harness";
import {
  CONFORMANCE_INPUT,
  createConformanceAgent,
  expectedConformanceRun,
} from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentEndpoint, listenAgents, RestateAgentClient, restateAgents } from "../src/index.js";
import { type RestateServer, startRestateServer } from "../src/testing/index.js";
import { quiet, RESTATE_SKIP } from "./support/restate-env.js";

let server: RestateServer | undefined;
let worker: AgentEndpoint | undefined;
let client: RestateAgentClient;
const journal = new InMemoryEventJournal();

describe.skipIf(RESTATE_SKIP !== undefined)(
  `pause and resume on restate-server${RESTATE_SKIP ? ` (${RESTATE_SKIP})` : ""}`,
  () => {
    beforeAll(async () => {
      server = await startRestateServer({ retryInitialIntervalMs: 20 });
      const services = restateAgents({
        agents: {
          pausable: () =>
            // 4 model calls of 400 ms: the pause, sent right after start, must reach the run before
            // its last model step; 1.2 s of margin keeps that true on a loaded CI machine.
            createConformanceAgent({ modelDelayMs: 400, toolDelayMs: 0, autoApprove: true }).agent,
        },
        events: () => ({ journal }),
        steering: new SteeringPolicy().allow("pause"),
      });
      worker = await listenAgents(services, { logger: quiet });
      await server.registerDeployment(worker.url);
      client = new RestateAgentClient({ ingressUrl: server.ingressUrl, journal });
    }, 60_000);

    afterAll(async () => {
      await worker?.close();
      await server?.stop();
    });

    it("a steering pause makes the run wait for resume; client.resume continues it to the uninterrupted transcript", async () => {
      const runId = "run-pause";
      await client.start("pausable", runId, CONFORMANCE_INPUT);
      await client.steer("pausable", runId, { kind: "pause", reason: "operator look" });
      const paused = await client.waitForStatus("pausable", runId, "paused");
      expect(paused?.resumeSignal).toBe(resumeSignalName(runId, 1));
      expect(paused?.waitingFor).toEqual([resumeSignalName(runId, 1)]);
      // The workflow did not end: nothing to attach to yet.
      expect(await client.output("pausable", runId)).toBeUndefined();

      await client.resume("pausable", runId);
      const outcome = await client.result("pausable", runId);
      expect(outcome.state).toBe("completed");
      expect(outcome.result.stopReason).toBe("completed");
      const expected = await expectedConformanceRun(runId);
      expect(outcome.result.messages).toEqual(expected.messages);
      expect(outcome.result.usage).toEqual(expected.usage);
      const types = (await journal.read(runId)).map((r) => r.event.type);
      expect(types.indexOf("run.interrupted")).toBeGreaterThan(-1);
      expect(types.indexOf("run.resumed")).toBeGreaterThan(types.indexOf("run.interrupted"));
      expect(types.at(-1)).toBe("run.completed");

      // A finished run is not waiting for resume.
      const late = await client.resume("pausable", runId).catch((e: unknown) => e);
      expect(TinyAgentsError.isInstance(late) && late.code).toBe("conflict");
    }, 60_000);

    it("refuses a malformed resume value before it reaches the run", async () => {
      const bad = await client
        .resume("pausable", "run-never", { approve: true } as never)
        .catch((e: unknown) => e);
      expect(TinyAgentsError.isInstance(bad) && bad.code).toBe("validation");
    });
  },
);
