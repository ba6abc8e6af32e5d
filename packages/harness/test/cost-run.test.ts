/**
 * Cost acceptance: hand-computed expectations for runs with cached reads and cache writes on
 * Anthropic and OpenAI catalog prices; an unknown model marks cost unknown instead of zero;
 * a sub-agent tree's cost is the parent's own plus the sum of its children.
 */
import {
  AgentHarness,
  type CostTotals,
  EventSink,
  PRICING_CATALOG_AS_OF,
  rollUpCost,
  runText,
  SubAgent,
  SubAgentTool,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import {
  DeterministicClock,
  DeterministicIds,
  EventRecorder,
  FakeTool,
  ScriptedModel,
} from "@tinyagents/harness/testkit";
import { assistant, type ChatModel, type ModelResponse, toolCall, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";

/** A scripted model that reports itself as `provider`/`modelId`, so the catalog prices it. */
function as(provider: string, modelId: string, replies: ModelResponse[]): ChatModel {
  const scripted = new ScriptedModel(replies);
  return { provider, modelId, invoke: (request, options) => scripted.invoke(request, options) };
}

const withTool = (u: ReturnType<typeof usage>): ModelResponse => ({
  message: assistant("", [toolCall("c1", "lookup")]),
  finishReason: "tool_calls",
  usage: u,
});
const answer = (u: ReturnType<typeof usage>): ModelResponse => ({
  message: assistant("done"),
  finishReason: "stop",
  usage: u,
});

async function runWith(model: ChatModel) {
  const harness = new AgentHarness<undefined, undefined>({
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
  })
    .registerModel("m", model)
    .registerTool(FakeTool.returning("lookup", "facts"));
  const events = new EventRecorder();
  const sink = new EventSink("r");
  events.attach(sink);
  const outcome = await lowerLayer(harness).invokeCollectingPartial(
    undefined,
    undefined,
    { runId: "r" },
    "go",
    {
      events: sink,
    },
  );
  return { ...outcome, events };
}

function expectCost(actual: CostTotals, expected: Omit<CostTotals, "currency">): void {
  for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) {
    expect(actual[key], key).toBeCloseTo(expected[key], 12);
  }
  expect(actual.unknown).toBe(expected.unknown);
}

describe("run cost from the pricing catalog", () => {
  it("Anthropic (claude-sonnet-4-5): cache writes at 3.75, reads at 0.30, never again at 3.00", async () => {
    const { run, status, error, events } = await runWith(
      as("anthropic", "claude-sonnet-4-5-20250929", [
        withTool(usage({ inputTokens: 10_000, cacheWriteTokens: 8_000, outputTokens: 200 })),
        answer(usage({ inputTokens: 10_500, cacheReadTokens: 8_000, outputTokens: 300 })),
      ]),
    );
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("done");
    // Call 1: 2,000 x $3 + 8,000 x $3.75 + 200 x $15 = 0.006 + 0.030 + 0.003 = 0.039
    // Call 2: 2,500 x $3 + 8,000 x $0.30 + 300 x $15 = 0.0075 + 0.0024 + 0.0045 = 0.0144
    const expected = { input: 0.0135, cacheRead: 0.0024, cacheWrite: 0.03, output: 0.0075, total: 0.0534 };
    expectCost(run.cost, expected);
    expectCost(status.cost, expected);
    expect(events.ofType("cost.recorded").map((e) => e.cost.total)).toEqual([
      expect.closeTo(0.039, 12),
      expect.closeTo(0.0144, 12),
    ]);
    // Every cost record says how old its prices are, and so do the run's totals.
    expect(events.ofType("cost.recorded").map((e) => e.cost.pricingAsOf)).toEqual([
      PRICING_CATALOG_AS_OF,
      PRICING_CATALOG_AS_OF,
    ]);
    expect(run.cost.pricingAsOf).toBe(PRICING_CATALOG_AS_OF);
  });

  it("OpenAI (gpt-4.1): cached input at 0.50 instead of 2.00", async () => {
    const { run } = await runWith(
      as("openai", "gpt-4.1", [
        withTool(usage({ inputTokens: 5_000, outputTokens: 100 })),
        answer(usage({ inputTokens: 6_000, cacheReadTokens: 4_096, outputTokens: 200 })),
      ]),
    );
    // Call 1: 5,000 x $2 + 100 x $8 = 0.01 + 0.0008
    // Call 2: 1,904 x $2 + 4,096 x $0.50 + 200 x $8 = 0.003808 + 0.002048 + 0.0016
    expectCost(run.cost, {
      input: 0.013808,
      cacheRead: 0.002048,
      cacheWrite: 0,
      output: 0.0024,
      total: 0.018256,
    });
  });

  it.each([
    ["acme", "house-model-1"],
    // A known provider with a model id the refreshed catalog does not list.
    ["openai", "gpt-4o-nonexistent-variant"],
    ["anthropic", "claude-unreleased-9"],
  ])(
    "an unknown model (%s %s) marks the run's cost unknown instead of reporting zero",
    async (provider, modelId) => {
      const { run, status, events } = await runWith(
        as(provider, modelId, [
          withTool(usage({ inputTokens: 10, outputTokens: 1 })),
          answer(usage({ inputTokens: 12 })),
        ]),
      );
      expect(run.usage.calls).toBe(2);
      expect(run.cost).toMatchObject({ total: 0, unknown: true });
      expect(status.cost.unknown).toBe(true);
      expect(events.ofType("run.completed")[0]?.cost.unknown).toBe(true);
      expect(events.ofType("cost.recorded")).toEqual([]);
    },
  );
});

describe("sub-agent cost roll-up", () => {
  it("the parent's cost is its own plus the sum of its children's", async () => {
    const clock = new DeterministicClock();
    const ids = new DeterministicIds();
    const make = () => new AgentHarness<undefined, undefined>({ clock, ids });
    const child = (name: string, u: ReturnType<typeof usage>) =>
      new SubAgent({
        name,
        description: name,
        harness: make().registerModel("m", as("openai", "gpt-4o-mini", [answer(u)])),
      });
    const parent = make()
      .registerModel(
        "m",
        as("anthropic", "claude-haiku-4-5", [
          {
            message: assistant("", [
              toolCall("a", "alpha", { input: "x" }),
              toolCall("b", "beta", { input: "y" }),
            ]),
            finishReason: "tool_calls",
            usage: usage({ inputTokens: 1_000, cacheWriteTokens: 1_000, outputTokens: 100 }),
          },
          answer(usage({ inputTokens: 1_200, cacheReadTokens: 1_000, outputTokens: 50 })),
        ]),
      )
      .registerTool(
        new SubAgentTool(
          child("alpha", usage({ inputTokens: 2_000, cacheReadTokens: 1_000, outputTokens: 500 })),
        ),
      )
      .registerTool(new SubAgentTool(child("beta", usage({ inputTokens: 4_000, outputTokens: 1_000 }))));
    const outcome = await lowerLayer(parent).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "p" },
      "go",
    );
    expect(outcome.error).toBeUndefined();
    // Haiku 4.5 ($1 in, $1.25 write, $0.10 read, $5 out): 1,000 x 1.25 + 100 x 5 = 0.00175;
    //   200 x 1 + 1,000 x 0.10 + 50 x 5 = 0.00055 -> own 0.0023.
    // gpt-4o-mini ($0.15 in, $0.075 cached, $0.60 out): alpha 1,000 x 0.15 + 1,000 x 0.075 + 500 x 0.6
    //   = 0.000525; beta 4,000 x 0.15 + 1,000 x 0.6 = 0.0012.
    const own: CostTotals = {
      currency: "USD",
      input: 0.0002,
      output: 0.00075,
      cacheRead: 0.0001,
      cacheWrite: 0.00125,
      total: 0.0023,
    };
    const alpha: CostTotals = {
      currency: "USD",
      input: 0.00015,
      output: 0.0003,
      cacheRead: 0.000075,
      cacheWrite: 0,
      total: 0.000525,
    };
    const beta: CostTotals = {
      currency: "USD",
      input: 0.0006,
      output: 0.0006,
      cacheRead: 0,
      cacheWrite: 0,
      total: 0.0012,
    };
    const children = outcome.run.children ?? [];
    expect(children.map((c) => c.name).sort()).toEqual(["alpha", "beta"]);
    expectCost(children.find((c) => c.name === "alpha")?.cost as CostTotals, alpha);
    expectCost(children.find((c) => c.name === "beta")?.cost as CostTotals, beta);
    const tree = rollUpCost(own, [alpha, beta]);
    expectCost(tree, {
      input: 0.00095,
      output: 0.00165,
      cacheRead: 0.000175,
      cacheWrite: 0.00125,
      total: 0.004025,
    });
    expectCost(outcome.run.cost, tree);
    expectCost(outcome.status.cost, tree);
  });
});
