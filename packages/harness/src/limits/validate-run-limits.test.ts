import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { thrown } from "../../test/support/thrown.js";
import { retryMiddleware } from "../middleware/library/retry-middleware.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { FakeTool } from "../testkit/fake-tool.js";
import { ScriptedModel } from "../testkit/scripted-model.js";

const BAD = [Number.NaN, "ten", -1, 1.5, Number.POSITIVE_INFINITY, null] as const;

function expectValidation(error: unknown, field: string): void {
  expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
  expect((error as TinyAgentsError).details?.field).toBe(field);
  expect((error as Error).message).toContain(field);
}

describe("limits and retry settings fail closed on every path", () => {
  const limitFields = ["maxModelCalls", "maxToolCalls", "maxRetriesPerCall", "maxDepth", "maxConcurrency"];
  for (const field of limitFields) {
    it(`withPolicy and the constructor refuse a bad limits.${field} (NaN, string, negative, fraction, Infinity, null)`, () => {
      for (const bad of BAD) {
        const harness = new AgentHarness();
        expectValidation(
          thrown(() => harness.withPolicy({ limits: { [field]: bad } as never })),
          `limits.${field}`,
        );
        expectValidation(
          thrown(() => new AgentHarness({ policy: { limits: { [field]: bad } as never } })),
          `limits.${field}`,
        );
        // The refused policy left the harness as it was.
        expect(harness.policy.limits.maxModelCalls).toBe(25);
      }
    });
  }

  const retryFields: Array<[string, unknown[]]> = [
    ["maxRetries", [...BAD]],
    ["initialBackoffMs", [Number.NaN, "10", -1]],
    ["multiplier", [Number.NaN, -1, 0, 0.5, "2"]],
    ["maxBackoffMs", [Number.NaN, -5]],
    ["jitter", [-0.1, 1.5, Number.NaN]],
    ["retryAfterCapMs", [Number.NaN, -1]],
  ];
  for (const [field, values] of retryFields) {
    it(`withPolicy and the retry middleware refuse a bad retry.${field}`, () => {
      for (const bad of values) {
        expectValidation(
          thrown(() => new AgentHarness().withPolicy({ retry: { [field]: bad } as never })),
          `retry.${field}`,
        );
        const error = thrown(() => retryMiddleware({ policy: { [field]: bad } as never }));
        expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
        expect((error as TinyAgentsError).details).toMatchObject({
          middleware: "retry",
          option: `policy.${field}`,
        });
      }
    });
  }

  it("RunConfig (per-run options) refuses the same values through the same check", async () => {
    const harness = new AgentHarness().registerModel("main", new ScriptedModel(["never"]));
    for (const field of ["maxModelCalls", "maxToolCalls", "timeoutMs", "maxDepth"]) {
      for (const bad of [Number.NaN, "ten", -1]) {
        const error = await lowerLayer(harness)
          .invoke(undefined, undefined, { runId: "r", [field]: bad } as never, "hi")
          .catch((e: unknown) => e);
        expectValidation(error, field);
      }
    }
    const fraction = await lowerLayer(harness)
      .invoke(undefined, undefined, { runId: "r", maxModelCalls: 2.5 }, "hi")
      .catch((e: unknown) => e);
    expectValidation(fraction, "maxModelCalls");
  });

  it("a valid policy still caps: maxModelCalls 2 stops a model that keeps calling tools", async () => {
    const loop = Array.from({ length: 60 }, () => ({ toolCalls: [{ name: "again" }] }));
    const model = new ScriptedModel(loop);
    const harness = new AgentHarness()
      .registerModel("main", model)
      .registerTool(FakeTool.returning("again", "ok"))
      .withPolicy({ limits: { maxModelCalls: 2 } });
    const error = await lowerLayer(harness)
      .invoke(undefined, undefined, { runId: "r" }, "go")
      .catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "limit_exceeded")).toBe(true);
    expect(model.requests.length).toBe(2);
  });
});
