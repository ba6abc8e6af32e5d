import { type AgentHarness, runText } from "@tinyagents/harness";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import {
  type ModelHint,
  type ModelProfile,
  type ModelRequest,
  permissiveProfile,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting } from "./helpers.js";

/** A harness with models "alpha", "beta", "gamma" (alpha registered first), each answering its name. */
function threeModels(profiles: Partial<Record<"alpha" | "beta" | "gamma", ModelProfile>> = {}) {
  const { harness } = makeHarness();
  const models = {} as Record<"alpha" | "beta" | "gamma", ScriptedModel>;
  for (const name of ["alpha", "beta", "gamma"] as const) {
    const profile = profiles[name];
    models[name] = new ScriptedModel(
      Array.from({ length: 3 }, () => `answer from ${name}`),
      profile === undefined ? { modelId: `${name}-id` } : { modelId: `${name}-id`, profile },
    );
    harness.registerModel(name, models[name]);
  }
  return { harness, models };
}

/** beforeModel middleware that applies `edit` to every request. */
function editRequests(harness: AgentHarness, edit: (request: ModelRequest) => void) {
  harness.use({
    name: "edit-request",
    beforeModel: (_ctx, request) => {
      edit(request);
    },
  });
}

const noTools: ModelProfile = {
  ...permissiveProfile(),
  capabilities: { ...permissiveProfile().capabilities, tools: false },
};

describe("model resolution", () => {
  it("uses the first registered model by default (registry_default)", async () => {
    const { harness, models } = threeModels();
    const { run, events } = await runCollecting(harness, "hi");
    expect(runText(run)).toBe("answer from alpha");
    expect(models.alpha.callCount).toBe(1);
    expect(run.resolvedModel).toEqual({
      name: "alpha",
      provider: "scripted",
      providerModelId: "alpha-id",
      source: "registry_default",
      fallbackHistory: [],
    });
    expect(events.ofType("route.selected")).toEqual([
      { type: "route.selected", callId: expect.any(String), model: "alpha", source: "registry_default" },
    ]);
    expect(events.ofType("model.started")[0]).toMatchObject({
      model: "alpha",
      provider: "scripted",
      providerModelId: "alpha-id",
    });
    expect(run.steps[0]?.model).toBe("alpha");
  });

  it("setDefaultModel beats the registry default (agent_default)", async () => {
    const { harness } = threeModels();
    harness.setDefaultModel("gamma");
    const { run } = await runCollecting(harness, "hi");
    expect(runText(run)).toBe("answer from gamma");
    expect(run.resolvedModel?.source).toBe("agent_default");
  });

  it("setDefaultModel with an unknown name throws model_not_found listing the registered names", () => {
    const { harness } = threeModels();
    expect(() => harness.setDefaultModel("delta")).toThrow(
      expect.objectContaining({
        code: "model_not_found",
        message: expect.stringContaining("alpha, beta, gamma"),
      }),
    );
  });

  it("hints are tried by priority, highest first, and beat the agent default", async () => {
    const { harness } = threeModels();
    harness.setDefaultModel("alpha");
    const hints: ModelHint[] = [
      { model: "beta", priority: 1 },
      { model: "gamma", priority: 5 },
    ];
    editRequests(harness, (request) => {
      request.modelHints = hints;
    });
    const { run, events } = await runCollecting(harness, "hi");
    expect(runText(run)).toBe("answer from gamma");
    expect(run.resolvedModel?.source).toBe("hint");
    expect(events.ofType("route.selected")[0]?.source).toBe("hint");
  });

  it("a request override set by beforeModel beats hints and defaults", async () => {
    const { harness, models } = threeModels();
    harness.setDefaultModel("alpha");
    editRequests(harness, (request) => {
      request.modelHints = [{ model: "gamma", priority: 9 }];
      request.model = "beta";
    });
    const { run } = await runCollecting(harness, "hi");
    expect(runText(run)).toBe("answer from beta");
    expect(run.resolvedModel).toMatchObject({ name: "beta", source: "request_override" });
    expect(run.resolvedModel?.requested).toBeUndefined();
    expect(models.alpha.callCount + models.gamma.callCount).toBe(0);
  });

  it("an unknown override fails with model_not_found listing the registered names", async () => {
    const { harness, models } = threeModels();
    editRequests(harness, (request) => {
      request.model = "delta";
    });
    const { error, events } = await runCollecting(harness, "hi");
    expect(error?.code).toBe("model_not_found");
    expect(error?.message).toContain('"delta"');
    expect(error?.message).toContain("alpha, beta, gamma");
    expect(error?.details).toEqual({ name: "delta", registered: ["alpha", "beta", "gamma"] });
    expect(events.ofType("model.started")).toEqual([]);
    expect(models.alpha.callCount).toBe(0);
  });

  it("required capabilities filter candidates using ModelProfile", async () => {
    const { harness } = threeModels({ alpha: noTools, beta: noTools, gamma: permissiveProfile() });
    harness.setDefaultModel("beta");
    editRequests(harness, (request) => {
      request.requiredCapabilities = { tools: true };
      request.modelHints = [
        { model: "alpha", priority: 9 },
        { model: "gamma", priority: 1 },
      ];
    });
    const { run, events } = await runCollecting(harness, "hi");
    // alpha (best hint) and beta (agent default) lack tools; gamma is the first candidate that fits.
    expect(runText(run)).toBe("answer from gamma");
    expect(run.resolvedModel?.source).toBe("hint");
    // Only a skipped *override* is an event; skipped hints are not.
    expect(events.ofType("model.override_skipped")).toEqual([]);
  });

  it("a model without a profile is assumed capable", async () => {
    const { harness } = threeModels();
    editRequests(harness, (request) => {
      request.requiredCapabilities = { tools: true, vision: true };
    });
    const { run } = await runCollecting(harness, "hi");
    expect(runText(run)).toBe("answer from alpha");
  });

  it("an override that lacks a required capability is skipped with model.override_skipped", async () => {
    const { harness } = threeModels({ alpha: noTools });
    editRequests(harness, (request) => {
      request.model = "alpha";
      request.requiredCapabilities = { tools: true };
      request.modelHints = [{ model: "gamma", priority: 1 }];
    });
    const { run, events } = await runCollecting(harness, "hi");
    expect(runText(run)).toBe("answer from gamma");
    expect(run.resolvedModel).toMatchObject({ name: "gamma", source: "hint", requested: "alpha" });
    expect(events.ofType("model.override_skipped")).toEqual([
      {
        type: "model.override_skipped",
        callId: expect.any(String),
        requested: "alpha",
        resolved: "gamma",
        reason: "missing tools",
      },
    ]);
  });

  it("when no model satisfies the requirements the run fails with model_not_found explaining why", async () => {
    const { harness } = threeModels({ alpha: noTools, beta: noTools, gamma: noTools });
    editRequests(harness, (request) => {
      request.requiredCapabilities = { tools: true };
    });
    const { error } = await runCollecting(harness, "hi");
    expect(error?.code).toBe("model_not_found");
    expect(error?.message).toContain("missing tools");
  });

  it("reusePreviousModel keeps the model that served the previous call (state_reuse)", async () => {
    const { harness } = makeHarness();
    const alpha = new ScriptedModel(["answer from alpha"]);
    const beta = new ScriptedModel([{ toolCalls: [{ name: "noop" }] }, "answer from beta"]);
    harness
      .registerModel("alpha", alpha)
      .registerModel("beta", beta)
      .registerTool(FakeTool.returning("noop", "ok"));
    let call = 0;
    editRequests(harness, (request) => {
      call++;
      if (call === 1) request.modelHints = [{ model: "beta", priority: 1 }];
      else request.reusePreviousModel = true;
    });
    const { run, events } = await runCollecting(harness, "hi");
    expect(runText(run)).toBe("answer from beta");
    expect(events.ofType("route.selected").map((e) => [e.model, e.source])).toEqual([
      ["beta", "hint"],
      ["beta", "state_reuse"],
    ]);
    expect(alpha.callCount).toBe(0);
  });

  it("without reusePreviousModel the next call resolves afresh", async () => {
    const { harness } = makeHarness();
    const alpha = new ScriptedModel(["answer from alpha"]);
    const beta = new ScriptedModel([{ toolCalls: [{ name: "noop" }] }]);
    harness
      .registerModel("alpha", alpha)
      .registerModel("beta", beta)
      .registerTool(FakeTool.returning("noop", "ok"));
    let call = 0;
    editRequests(harness, (request) => {
      if (++call === 1) request.modelHints = [{ model: "beta", priority: 1 }];
    });
    const { run, events } = await runCollecting(harness, "hi");
    expect(runText(run)).toBe("answer from alpha");
    expect(events.ofType("route.selected").map((e) => e.model)).toEqual(["beta", "alpha"]);
  });
});
