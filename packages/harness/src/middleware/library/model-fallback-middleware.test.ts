import { ProviderError, type ProviderFailureKind } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { runText } from "../../agent-loop/agent-run.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { runAgent, setup } from "./harness.fixture.js";
import { modelFallbackMiddleware } from "./model-fallback-middleware.js";

const failure = (kind: ProviderFailureKind, message: string = kind) =>
  new ProviderError({ provider: "p", message, kind, status: kind === "non_retryable" ? 400 : 503 });

const noLoopRetry = { retry: { maxRetries: 0 } };

describe("modelFallbackMiddleware", () => {
  it("moves down the chain on a retryable error, setting request.model and recording the history", async () => {
    const { harness } = setup({ policy: noLoopRetry });
    const backup = new ScriptedModel(["from backup"]);
    harness
      .registerModel("primary", new ScriptedModel([failure("upstream_unhealthy", "primary down")]))
      .registerModel("backup", backup)
      .use(modelFallbackMiddleware({ models: ["backup"] }));
    const { run, error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("from backup");
    expect(backup.requests[0]?.model).toBe("backup");
    expect(events.ofType("fallback.selected").map((e) => [e.from, e.to, e.error.message])).toEqual([
      ["primary", "backup", "primary down"],
    ]);
    expect(run.resolvedModel).toMatchObject({
      name: "backup",
      source: "fallback",
      requested: "primary",
      fallbackHistory: [{ name: "primary", error: "primary down", code: "provider" }],
    });
    expect(run.finalResponse?.resolvedModel).toEqual(run.resolvedModel);
  });

  it("falls back on context overflow too", async () => {
    const { harness } = setup({ policy: noLoopRetry });
    harness
      .registerModel("small", new ScriptedModel([failure("context_overflow", "prompt too long")]))
      .registerModel("large", new ScriptedModel(["fits"]))
      .use(modelFallbackMiddleware({ models: ["large"] }));
    const { run, error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("fits");
    expect(events.ofType("fallback.selected")[0]?.error.code).toBe("context_overflow");
  });

  it("throws the last error when the chain is exhausted (edge: every model fails)", async () => {
    const { harness } = setup({ policy: noLoopRetry });
    harness
      .registerModel("a", new ScriptedModel([failure("upstream_unhealthy", "a down")]))
      .registerModel("b", new ScriptedModel([failure("rate_limited", "b busy")]))
      .registerModel("c", new ScriptedModel([failure("upstream_unhealthy", "c down")]))
      .use(modelFallbackMiddleware({ models: ["a", "b", "c"] }));
    const { error, events } = await runAgent(harness, "hi");
    expect(error?.message).toBe("c down");
    // "a" served first (the default) and is skipped as a fallback target.
    expect(events.ofType("fallback.selected").map((e) => `${e.from}->${e.to}`)).toEqual(["a->b", "b->c"]);
  });

  it("does not fall back on a non-retryable error", async () => {
    const { harness } = setup({ policy: noLoopRetry });
    const backup = new ScriptedModel(["unused"]);
    harness
      .registerModel("primary", new ScriptedModel([failure("non_retryable", "bad request")]))
      .registerModel("backup", backup)
      .use(modelFallbackMiddleware({ models: ["backup"] }));
    const { error, events } = await runAgent(harness, "hi");
    expect(error?.message).toBe("bad request");
    expect(backup.callCount).toBe(0);
    expect(events.ofType("fallback.selected")).toEqual([]);
  });

  it("rejects an empty chain at construction, naming the option", () => {
    expect(() => modelFallbackMiddleware({ models: [] })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { middleware: "model_fallback", option: "models" },
      }),
    );
    expect(() => modelFallbackMiddleware({ models: ["ok", ""] })).toThrow(/models/);
  });
});
