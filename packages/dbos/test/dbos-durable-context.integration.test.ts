/**
 * DbosDurableContext against a real DBOS runtime over a throwaway Postgres: a completed step is
 * answered from the journal when the workflow is re-driven (cancel + resume re-executes it from
 * the top, as recovery does), now() and randomId() replay, a failed step replays as the same
 * TinyAgentsError, awaitSignal is DBOS recv (kept when sent early, undefined on timeout); the
 * model step that proposed a `once` call is its intent (no `intent:` step, issue 36).
 */
import { CONFORMANCE_INPUT, createConformanceAgent } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DbosDurableContext } from "../src/dbos-durable-context.js";
import { DBOS } from "../src/dbos-sdk.js";
import { databaseUrl, dbosSkipReason } from "./support/postgres.js";

const skip = dbosSkipReason("dbos-durable-context.test");

interface Attempt {
  ids: string[];
  now: number;
  failure?: { code: string; message: string; details: unknown; replayed: boolean };
}
const executions = new Map<string, number>();
const attempts = new Map<string, Attempt[]>();
const entered = new Map<string, () => void>();

const probe = DBOS.registerWorkflow(
  async (label: string) => {
    const ctx = await DbosDurableContext.open();
    const attempt: Attempt = { ids: [], now: 0 };
    const list = attempts.get(label) ?? [];
    list.push(attempt);
    attempts.set(label, list);
    const counted = await ctx.step(
      `model:${label}`,
      async () => {
        executions.set(label, (executions.get(label) ?? 0) + 1);
        return { n: executions.get(label) ?? 0 };
      },
      { kind: "model" },
    );
    attempt.ids.push(ctx.randomId("run"), ctx.randomId());
    attempt.now = ctx.now();
    let firstRun = true;
    try {
      await ctx.step(
        `tool:${label}`,
        async () => {
          firstRun = false;
          throw new TinyAgentsError("tool", "card declined", { details: { cents: 42 } });
        },
        { kind: "tool", idempotencyKey: `${label}:c1` },
      );
    } catch (error) {
      const e = error as TinyAgentsError;
      attempt.failure = { code: e.code, message: e.message, details: e.details, replayed: firstRun };
    }
    entered.get(label)?.();
    const go = await ctx.awaitSignal<{ ok: boolean }>("go");
    const late = await ctx.awaitSignal("never", { timeoutMs: 30 });
    return { counted, go: go ?? null, late: late ?? "timed out" };
  },
  { name: "ctx-probe" },
);

// The conformance scenario (send_email is a `once` tool), the deploy approved by rule.
const scenario = DBOS.registerWorkflow(
  async () => {
    const durable = await DbosDurableContext.open();
    const { agent } = createConformanceAgent({ autoApprove: true, modelDelayMs: 0, toolDelayMs: 0 });
    const result = await agent.run(CONFORMANCE_INPUT, { runId: durable.runId, durable });
    return result.stopReason;
  },
  { name: "ctx-scenario" },
);

let pg: TestPostgres | undefined;

describe.skipIf(skip !== undefined)("DbosDurableContext on DBOS + Postgres", () => {
  beforeAll(async () => {
    pg = await startTestPostgres();
    DBOS.setConfig({
      name: "ctx-test",
      systemDatabaseUrl: databaseUrl(pg as TestPostgres, "ctx_test"),
      executorID: "ctx-worker",
      applicationVersion: "v1",
      logLevel: "error",
    });
    await DBOS.launch();
  }, 60_000);
  afterAll(async () => {
    await DBOS.shutdown();
    await pg?.stop();
  });

  it("records steps once, replays them with the same ids, time and failure", async () => {
    const waiting = new Promise<void>((resolve) => entered.set("a", resolve));
    const handle = await DBOS.startWorkflow(probe, { workflowID: "run-a" })("a");
    await waiting;
    // Re-drive from the top, as a recovering worker does: cancel, then resume re-executes it.
    await DBOS.cancelWorkflow("run-a");
    const rewaiting = new Promise<void>((resolve) => entered.set("a", resolve));
    await DBOS.resumeWorkflow("run-a");
    await rewaiting;
    await DBOS.send("run-a", { v: { ok: true } }, "go");
    const resumed = await DBOS.retrieveWorkflow<{ counted: unknown; go: unknown; late: unknown }>("run-a");
    const result = await resumed.getResult();
    expect(result).toEqual({ counted: { n: 1 }, go: { ok: true }, late: "timed out" });
    expect(executions.get("a")).toBe(1);
    const [first, second] = attempts.get("a") ?? [];
    expect(second?.ids).toEqual(first?.ids);
    expect(first?.ids[0]).toMatch(/^run-[0-9a-f]{8}-/);
    expect(new Set(first?.ids).size).toBe(2);
    expect(second?.now).toBe(first?.now);
    expect(first?.failure).toEqual({
      code: "tool",
      message: "card declined",
      details: { cents: 42 },
      replayed: false,
    });
    expect(second?.failure).toEqual({ ...first?.failure, replayed: true });
    void handle;
    const steps = (await DBOS.listWorkflowSteps("run-a")) ?? [];
    expect(steps.map((s) => s.name).slice(0, 3)).toEqual(["tinyagents.start", "model:a", "tool:a"]);
  });

  it("a signal sent before the wait completes it, exactly once", async () => {
    const waiting = new Promise<void>((resolve) => entered.set("b", resolve));
    const handle = await DBOS.startWorkflow(probe, { workflowID: "run-b" })("b");
    await DBOS.send("run-b", { v: { ok: false } }, "go", "once-key");
    await DBOS.send("run-b", { v: { ok: true } }, "go", "once-key");
    await waiting;
    expect(await handle.getResult()).toEqual({ counted: { n: 1 }, go: { ok: false }, late: "timed out" });
  });

  it("a once call is one result step: the model step that proposed it is its intent", async () => {
    const handle = await DBOS.startWorkflow(scenario, { workflowID: "run-once" })();
    expect(await handle.getResult()).toBe("completed");
    const steps = ((await DBOS.listWorkflowSteps("run-once")) ?? []).map((s) => s.name);
    // No `intent:call_email` step before `result:call_email`: 7 steps for 7 calls, plus the start.
    expect(steps).toEqual([
      "tinyagents.start",
      "model:run-once-model-1",
      "tool:call_fetch",
      "model:run-once-model-2",
      "result:call_email",
      "model:run-once-model-3",
      "tool:call_deploy",
      "model:run-once-model-4",
    ]);
  });

  it("open() outside a workflow is a validation error", async () => {
    await expect(DbosDurableContext.open()).rejects.toMatchObject({ code: "validation" });
  });
});
