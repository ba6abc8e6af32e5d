/**
 * Retry interplay: the loop's own retry (`RunPolicy.retry`), the policy fallback chain,
 * `retryMiddleware`, `modelFallbackMiddleware` and `rateLimitMiddleware` together. Whatever the
 * combination:
 * - one model is never attempted more than `RunLimits.maxRetriesPerCall + 1` times within one
 *   model call, however many retry layers are stacked;
 * - a non-retryable failure is never retried by any layer (a quota or overflow may fall back);
 * - provider calls never outpace the rate limiter's bucket when it sits inside the retry layer;
 * - the run's outcome is the documented one (see fault-kit.ts), on both paths.
 */
import {
  type Middleware,
  modelFallbackMiddleware,
  rateLimitMiddleware,
  retryMiddleware,
} from "@tinyagents/harness";
import {
  assistant,
  type ChatModel,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type ProviderFailureKind,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { BOTH_PATHS, eventsOf, expectCompletedRun, expectFailedRun, runFault } from "./fault-kit.js";

/** A model failing its first `failures` calls with `kind`, then answering; records call times. */
class FlakyModel implements ChatModel {
  readonly provider = "flaky";
  readonly modelId: string;
  readonly cacheIdentity: string;
  readonly calls: number[] = [];
  constructor(
    name: string,
    private readonly kind: ProviderFailureKind,
    private readonly failures = Number.POSITIVE_INFINITY,
  ) {
    this.modelId = name;
    this.cacheIdentity = `flaky:${name}`;
  }
  async invoke(_request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    this.calls.push(options?.clock?.now() ?? 0);
    if (this.calls.length <= this.failures) {
      const status = this.kind === "non_retryable" ? 400 : this.kind === "quota_exhausted" ? 429 : 529;
      throw new ProviderError({
        provider: "flaky",
        model: this.modelId,
        kind: this.kind,
        status,
        message: `${this.modelId} says ${this.kind}`,
      });
    }
    return { message: assistant(`answer from ${this.modelId}`), finishReason: "stop" };
  }
}

interface Interplay {
  name: string;
  primary: () => FlakyModel;
  backup?: () => FlakyModel;
  /** Loop retries (`RunPolicy.retry.maxRetries`); the cap `maxRetriesPerCall` is 3. */
  loopRetries: number;
  policyFallback?: boolean;
  middleware?: () => Middleware[];
  expect: {
    primaryCalls: number;
    backupCalls?: number;
    outcome: "completed" | "provider";
  };
}

const CAP = 3;
const fastRetry = (maxRetries: number) => retryMiddleware({ policy: { maxRetries, initialBackoffMs: 10 } });

const CASES: readonly Interplay[] = [
  {
    name: "loop retry + policy fallback: each model gets its retries, then the run fails",
    primary: () => new FlakyModel("primary", "upstream_unhealthy"),
    backup: () => new FlakyModel("backup", "upstream_unhealthy"),
    loopRetries: 2,
    policyFallback: true,
    expect: { primaryCalls: 3, backupCalls: 3, outcome: "provider" },
  },
  {
    name: "loop retries above the cap are capped at maxRetriesPerCall",
    primary: () => new FlakyModel("primary", "upstream_unhealthy"),
    loopRetries: 10,
    expect: { primaryCalls: CAP + 1, outcome: "provider" },
  },
  {
    name: "a non-retryable failure is neither retried nor falls back",
    primary: () => new FlakyModel("primary", "non_retryable"),
    backup: () => new FlakyModel("backup", "upstream_unhealthy", 0),
    loopRetries: 3,
    policyFallback: true,
    middleware: () => [fastRetry(5), modelFallbackMiddleware({ models: ["backup"] })],
    expect: { primaryCalls: 1, backupCalls: 0, outcome: "provider" },
  },
  {
    name: "an exhausted quota is not retried but falls back",
    primary: () => new FlakyModel("primary", "quota_exhausted"),
    backup: () => new FlakyModel("backup", "upstream_unhealthy", 0),
    loopRetries: 3,
    middleware: () => [fastRetry(5), modelFallbackMiddleware({ models: ["backup"] })],
    expect: { primaryCalls: 1, backupCalls: 1, outcome: "completed" },
  },
  {
    name: "retryMiddleware around the loop's own retries never exceeds the per-call cap",
    primary: () => new FlakyModel("primary", "upstream_unhealthy"),
    loopRetries: 3,
    middleware: () => [fastRetry(5)],
    expect: { primaryCalls: CAP + 1, outcome: "provider" },
  },
  {
    name: "retryMiddleware + fallback middleware + loop retries: the cap holds for every model",
    primary: () => new FlakyModel("primary", "upstream_unhealthy"),
    backup: () => new FlakyModel("backup", "upstream_unhealthy"),
    loopRetries: 2,
    middleware: () => [fastRetry(4), modelFallbackMiddleware({ models: ["backup"] })],
    expect: { primaryCalls: CAP + 1, backupCalls: CAP + 1, outcome: "provider" },
  },
  {
    name: "retryMiddleware as the only retry layer recovers within the cap",
    primary: () => new FlakyModel("primary", "upstream_unhealthy", 2),
    loopRetries: 0,
    middleware: () => [fastRetry(5)],
    expect: { primaryCalls: 3, outcome: "completed" },
  },
];

describe.each(BOTH_PATHS)("retry + fallback (%s)", (_path, streaming) => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const primary = c.primary();
    const backup = c.backup?.();
    const result = await runFault({
      models: backup === undefined ? { primary } : { primary, backup },
      streaming,
      middleware: c.middleware?.() ?? [],
      policy: {
        retry: { maxRetries: c.loopRetries, initialBackoffMs: 10 },
        limits: { maxRetriesPerCall: CAP },
        ...(c.policyFallback === true ? { fallback: ["backup"] } : {}),
      },
    });
    expect(primary.calls).toHaveLength(c.expect.primaryCalls);
    if (c.expect.backupCalls !== undefined) expect(backup?.calls).toHaveLength(c.expect.backupCalls);
    if (c.expect.outcome === "completed") expectCompletedRun(result, ["user", "assistant"]);
    else expectFailedRun(result, { code: "provider", transcript: ["user"] });
    // Every attempt is bracketed, and a retry is only ever scheduled after a retryable failure.
    expect(eventsOf(result, "model.started")).toHaveLength(
      primary.calls.length + (backup?.calls.length ?? 0),
    );
    for (const retry of eventsOf(result, "retry.scheduled")) {
      expect(["upstream_unhealthy", "rate_limited", "retryable"]).toContain(retry.error.details?.kind);
    }
  });
});

describe.each(BOTH_PATHS)("retry + fallback + rate limit (%s)", (_path, streaming) => {
  it("provider calls never outpace the bucket, retries included", async () => {
    const primary = new FlakyModel("primary", "rate_limited");
    const backup = new FlakyModel("backup", "upstream_unhealthy", 2);
    const capacity = 2;
    const refillPerSecond = 0.5;
    const result = await runFault({
      models: { primary, backup },
      streaming,
      // Outermost first: retry, then fallback, then the limiter right around each provider call.
      middleware: [
        fastRetry(6),
        modelFallbackMiddleware({ models: ["backup"] }),
        rateLimitMiddleware({ requests: { capacity, refillPerSecond } }),
      ],
      policy: { retry: { maxRetries: 0 }, limits: { maxRetriesPerCall: CAP } },
    });
    expectCompletedRun(result, ["user", "assistant"]);
    expect(primary.calls.length).toBeLessThanOrEqual(CAP + 1);
    expect(backup.calls).toHaveLength(3);
    // Token bucket: in any window [t, t + w] at most capacity + w * rate calls start.
    const times = [...primary.calls, ...backup.calls].sort((a, b) => a - b);
    for (let i = 0; i < times.length; i++) {
      for (let j = i; j < times.length; j++) {
        const window = ((times[j] as number) - (times[i] as number)) / 1000;
        expect(j - i + 1).toBeLessThanOrEqual(capacity + window * refillPerSecond + 1e-9);
      }
    }
    expect(eventsOf(result, "rate_limit.waited").length).toBeGreaterThan(0);
  });
});
