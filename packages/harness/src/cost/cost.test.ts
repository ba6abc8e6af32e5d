import { usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { addCost, type CostTotals, emptyCost, estimateCost, markCostUnknown, rollUpCost } from "./cost.js";
import { lookupPricing } from "./lookup-pricing.js";
import { PRICING_CATALOG, PRICING_CATALOG_AS_OF, PRICING_CATALOG_SOURCE } from "./pricing-catalog.js";

const close = (actual: CostTotals, expected: Omit<CostTotals, "currency">) => {
  for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) {
    expect(actual[key], key).toBeCloseTo(expected[key], 12);
  }
  expect(actual.unknown).toBe(expected.unknown);
};

describe("estimateCost", () => {
  it("bills Anthropic cache reads and writes at their own rates, never again as input", () => {
    // claude-sonnet-4-5: $3 in, $0.30 cache read, $3.75 cache write, $15 out (per 1M).
    const pricing = lookupPricing("anthropic", "claude-sonnet-4-5-20250929");
    if (pricing === undefined) throw new Error("catalog lacks claude-sonnet-4-5");
    // 10,000 prompt tokens: 6,000 read from cache, 2,000 written to it, 2,000 plain; 500 out.
    const u = usage({
      inputTokens: 10_000,
      cacheReadTokens: 6_000,
      cacheWriteTokens: 2_000,
      outputTokens: 500,
    });
    close(estimateCost(pricing, u), {
      input: (2_000 * 3) / 1e6, // 0.006
      cacheRead: (6_000 * 0.3) / 1e6, // 0.0018
      cacheWrite: (2_000 * 3.75) / 1e6, // 0.0075
      output: (500 * 15) / 1e6, // 0.0075
      total: 0.006 + 0.0018 + 0.0075 + 0.0075, // 0.0228
    });
  });

  it("bills OpenAI cached input at the cached rate (no write surcharge)", () => {
    // gpt-4.1: $2 in, $0.50 cached, $8 out.
    const pricing = lookupPricing("openai", "gpt-4.1-2025-04-14");
    if (pricing === undefined) throw new Error("catalog lacks gpt-4.1");
    const u = usage({ inputTokens: 12_000, cacheReadTokens: 8_192, outputTokens: 1_000, reasoningTokens: 0 });
    close(estimateCost(pricing, u), {
      input: (3_808 * 2) / 1e6, // 0.007616
      cacheRead: (8_192 * 0.5) / 1e6, // 0.004096
      cacheWrite: 0,
      output: (1_000 * 8) / 1e6, // 0.008
      total: 0.007616 + 0.004096 + 0.008,
    });
  });

  it("bills reasoning apart only when the pricing says so", () => {
    const u = usage({ inputTokens: 0, outputTokens: 100, reasoningTokens: 60 });
    expect(estimateCost({ inputPerMillion: 1, outputPerMillion: 10 }, u).output).toBeCloseTo(100e-5, 12);
    expect(
      estimateCost({ inputPerMillion: 1, outputPerMillion: 10, reasoningPerMillion: 20 }, u).output,
    ).toBeCloseTo((40 * 10 + 60 * 20) / 1e6, 12);
  });
});

describe("cost totals", () => {
  it("propagates the unknown flag through sums and roll-ups, never zeroing silently", () => {
    const priced = estimateCost({ inputPerMillion: 1, outputPerMillion: 1 }, usage({ inputTokens: 1e6 }));
    const unknown = markCostUnknown(emptyCost());
    expect(addCost(priced, priced).unknown).toBeUndefined();
    expect(addCost(priced, unknown)).toMatchObject({ total: 1, unknown: true });
    expect(rollUpCost(priced, [emptyCost(), unknown]).unknown).toBe(true);
  });

  it("rolls a sub-agent tree up as parent plus the sum of children, purely", () => {
    const parent: CostTotals = {
      currency: "USD",
      input: 1,
      output: 2,
      cacheRead: 0.5,
      cacheWrite: 0.25,
      total: 3.75,
    };
    const a: CostTotals = {
      currency: "USD",
      input: 0.1,
      output: 0.2,
      cacheRead: 0,
      cacheWrite: 0,
      total: 0.3,
    };
    const b: CostTotals = {
      currency: "USD",
      input: 0.01,
      output: 0.02,
      cacheRead: 0.03,
      cacheWrite: 0.04,
      total: 0.1,
    };
    const before = JSON.stringify([parent, a, b]);
    const tree = rollUpCost(parent, [a, b]);
    expect(JSON.stringify([parent, a, b])).toBe(before);
    close(tree, { input: 1.11, output: 2.22, cacheRead: 0.53, cacheWrite: 0.29, total: 4.15 });
    expect(rollUpCost(parent, [])).toEqual(parent);
    expect(rollUpCost(parent, [])).not.toBe(parent);
  });
});

describe("the generated pricing catalog", () => {
  it("is dated, names its source and covers the providers the adapters report", () => {
    expect(PRICING_CATALOG_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Number.isNaN(Date.parse(PRICING_CATALOG_AS_OF))).toBe(false);
    expect(PRICING_CATALOG_SOURCE).toMatch(/^@pydantic\/genai-prices@\d+\.\d+\.\d+/);
    const providers = new Set(PRICING_CATALOG.map((e) => e.provider));
    expect([...providers].sort()).toEqual([
      "anthropic",
      "deepseek",
      "google",
      "groq",
      "mistral",
      "openai",
      "together",
      "xai",
    ]);
  });

  it("has sane prices: positive input and output, non-negative cache prices, reads cheaper than input", () => {
    for (const { provider, model, pricing } of PRICING_CATALOG) {
      const where = `${provider}/${model}`;
      expect(pricing.inputPerMillion, where).toBeGreaterThanOrEqual(0);
      expect(pricing.outputPerMillion, where).toBeGreaterThan(0);
      expect(Number.isFinite(pricing.inputPerMillion + pricing.outputPerMillion), where).toBe(true);
      if (pricing.cacheReadPerMillion !== undefined) {
        expect(pricing.cacheReadPerMillion, where).toBeGreaterThanOrEqual(0);
        expect(pricing.cacheReadPerMillion, where).toBeLessThanOrEqual(pricing.inputPerMillion);
      }
      if (pricing.cacheWritePerMillion !== undefined) {
        expect(pricing.cacheWritePerMillion, where).toBeGreaterThanOrEqual(pricing.inputPerMillion);
      }
      expect(pricing.asOf, where).toBe(PRICING_CATALOG_AS_OF);
    }
    // One row per provider and id.
    const keys = PRICING_CATALOG.map((e) => `${e.provider}/${e.model.toLowerCase()}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("knows the current flagship models of each provider", () => {
    for (const [provider, model] of [
      ["openai", "gpt-5"],
      ["openai", "gpt-5-mini"],
      ["openai", "gpt-4.1-mini"],
      ["openai", "o4-mini"],
      ["anthropic", "claude-sonnet-4-5"],
      ["anthropic", "claude-haiku-4-5"],
      ["anthropic", "claude-opus-4-1"],
      ["google", "gemini-2.5-pro"],
      ["google", "gemini-2.5-flash"],
      ["deepseek", "deepseek-chat"],
      ["deepseek", "deepseek-reasoner"],
      ["xai", "grok-4"],
      ["groq", "llama-3.3-70b-versatile"],
      ["mistral", "mistral-large-latest"],
    ] as const) {
      expect(lookupPricing(provider, model), `${provider}/${model}`).toBeDefined();
    }
  });

  it("cost records from catalog prices carry the catalog date; sums keep the oldest date", () => {
    const pricing = lookupPricing("openai", "gpt-4.1-mini");
    if (pricing === undefined) throw new Error("catalog lacks gpt-4.1-mini");
    const cost = estimateCost(pricing, usage({ inputTokens: 1000, outputTokens: 10 }));
    expect(cost.pricingAsOf).toBe(PRICING_CATALOG_AS_OF);
    const mine = estimateCost({ inputPerMillion: 1, outputPerMillion: 1 }, usage({ inputTokens: 1 }));
    expect(mine.pricingAsOf).toBeUndefined();
    const old = estimateCost(
      { inputPerMillion: 1, outputPerMillion: 1, asOf: "2024-01-31" },
      usage({ inputTokens: 1 }),
    );
    expect(addCost(cost, mine).pricingAsOf).toBe(PRICING_CATALOG_AS_OF);
    expect(addCost(cost, old).pricingAsOf).toBe("2024-01-31");
    expect(markCostUnknown(cost)).toMatchObject({ unknown: true, pricingAsOf: PRICING_CATALOG_AS_OF });
  });
});

describe("lookupPricing", () => {
  it("matches exact ids, then dated or -latest variants of the longest known id", () => {
    expect(lookupPricing("openai", "gpt-4o-mini")?.inputPerMillion).toBe(0.15);
    expect(lookupPricing("openai", "gpt-4o-mini-2024-07-18")?.inputPerMillion).toBe(0.15);
    expect(lookupPricing("openai", "gpt-4o-2024-08-06")?.inputPerMillion).toBe(2.5);
    expect(lookupPricing("OpenAI", "GPT-4O")?.inputPerMillion).toBe(2.5);
    expect(lookupPricing("anthropic", "claude-opus-4-5-20251101")?.inputPerMillion).toBe(5);
    expect(lookupPricing("anthropic", "claude-opus-4-20250514")?.inputPerMillion).toBe(15);
    expect(lookupPricing("mistral", "mistral-large-latest")?.inputPerMillion).toBe(2);
    expect(lookupPricing("mistralai", "mistral-small-2603")?.outputPerMillion).toBe(0.6);
    expect(lookupPricing("x-ai", "grok-4-0709")?.cacheReadPerMillion).toBe(0.75);
    expect(lookupPricing("groq", "openai/gpt-oss-120b")?.outputPerMillion).toBe(0.6);
    // DeepSeek lists a cheaper off-peak window; the catalog keeps the dearer standard-hours price.
    expect(lookupPricing("deepseek", "deepseek/deepseek-chat")?.inputPerMillion).toBe(0.27);
  });

  it("says unknown instead of guessing", () => {
    expect(lookupPricing("openai", "gpt-4o-nonexistent-variant")).toBeUndefined();
    expect(lookupPricing("openai", "gpt-9")).toBeUndefined();
    expect(lookupPricing("scripted", "scripted")).toBeUndefined();
    expect(lookupPricing("anthropic", "gpt-4o")).toBeUndefined();
  });

  it("lets overrides win and extend, keyed provider/model or as entries", () => {
    const overrides = {
      "openai/gpt-4o": { inputPerMillion: 1, outputPerMillion: 2 },
      "acme/house-model": { inputPerMillion: 0.5, outputPerMillion: 0.5 },
    };
    expect(lookupPricing("openai", "gpt-4o-2024-08-06", overrides)?.inputPerMillion).toBe(1);
    expect(lookupPricing("acme", "house-model", overrides)?.outputPerMillion).toBe(0.5);
    expect(lookupPricing("openai", "gpt-4o-mini", overrides)?.inputPerMillion).toBe(0.15);
    const entries = [
      { provider: "groq", model: "new-model", pricing: { inputPerMillion: 9, outputPerMillion: 9 } },
    ];
    expect(lookupPricing("groq", "new-model", entries)?.inputPerMillion).toBe(9);
    // Returned prices are copies.
    const got = lookupPricing("openai", "gpt-4o");
    if (got) got.inputPerMillion = 999;
    expect(lookupPricing("openai", "gpt-4o")?.inputPerMillion).toBe(2.5);
  });
});
