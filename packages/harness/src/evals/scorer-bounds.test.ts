import { describe, expect, it } from "vitest";
import { waitUntil } from "../../test/support/wait-until.js";
import { InMemoryKeyValueStore } from "../store/key-value-store.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { agentPerCase } from "./eval.fixture.js";
import { EvalStore } from "./eval-store.js";
import { evaluate } from "./evaluate.js";
import type { ScoreResult } from "./scorer.js";
import { defineScorer } from "./scorers/custom.js";
import { exactMatch } from "./scorers/exact-match.js";

// Issue 37 items 12-14: a broken scorer is a scorer error for its case, never a lost eval,
// a hang or a pass.
const cases = [
  { id: "paris", input: "Capital of France?", expected: "Paris" },
  { id: "rome", input: "Capital of Italy?", expected: "Rome" },
];
const agent = agentPerCase({ paris: ["Paris"], rome: ["Rome"] });

describe("scorers that misbehave", () => {
  it("circular or BigInt metadata is a scorer error for that case; the result stays JSON and is saved", async () => {
    const circular: Record<string, unknown> = { note: "loops" };
    circular.self = circular;
    const weird = defineScorer("weird", ({ case: c }) =>
      c.id === "paris"
        ? ({ score: 1, metadata: circular } as unknown as ScoreResult)
        : ({ score: 1, metadata: { big: 10n } } as unknown as ScoreResult),
    );
    const store = new EvalStore(new InMemoryKeyValueStore());
    const result = await evaluate({
      agent,
      dataset: cases,
      scorers: [weird, exactMatch()],
      store,
      evalRunId: "eval-weird",
    });
    expect(result.trials.map((t) => t.scores[0])).toEqual([
      {
        scorer: "weird",
        error: {
          code: "validation",
          message: expect.stringContaining(
            'scorer "weird" returned metadata that is not JSON data: metadata.self: the value contains a cycle',
          ),
        },
      },
      {
        scorer: "weird",
        error: {
          code: "validation",
          message: expect.stringContaining("metadata.big: a bigint is not JSON data"),
        },
      },
    ]);
    expect(result.trials.map((t) => t.passed)).toEqual([false, false]);
    expect(result.report.scorers[0]).toMatchObject({ scorer: "weird", errors: 2 });
    expect(result.passed).toBe(false); // no thresholds, yet a scorer error is never a pass
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    expect((await store.require("eval-weird")).trials).toHaveLength(2);
  });

  it("garbage (a non-string reason, a score out of range) is a scorer error", async () => {
    const garbage = defineScorer("garbage", ({ case: c }) =>
      c.id === "paris" ? ({ score: 1, reason: { no: "string" } } as unknown as ScoreResult) : Number.NaN,
    );
    const result = await evaluate({ agent, dataset: cases, scorers: [garbage] });
    expect(
      result.trials.map((t) => t.scores[0] && "error" in t.scores[0] && t.scores[0].error.message),
    ).toEqual([
      'scorer "garbage" returned a reason that is not a string',
      'scorer "garbage" returned score NaN; scores must be numbers in [0, 1]',
    ]);
    expect(result.passed).toBe(false);
  });

  it("a scorer that never settles is a timeout error after scorerTimeoutMs on the eval's clock; the scorer's signal aborts", async () => {
    const clock = new DeterministicClock({ autoAdvance: false });
    let seenSignal: AbortSignal | undefined;
    const stuck = defineScorer("stuck", ({ case: c, signal }) => {
      if (c.id === "rome") return 1;
      seenSignal = signal;
      return new Promise<number>(() => {}); // never settles, holds no timer
    });
    const store = new EvalStore(new InMemoryKeyValueStore());
    const pending = evaluate({
      agent,
      dataset: cases,
      scorers: [stuck],
      clock,
      concurrency: 1,
      scorerTimeoutMs: 5_000,
      store,
      evalRunId: "eval-stuck",
    });
    await waitUntil(() => clock.pendingTimers === 1);
    clock.advance(4_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seenSignal?.aborted).toBe(false);
    clock.advance(1);
    const result = await pending;
    expect(seenSignal?.aborted).toBe(true);
    expect(result.trials.map((t) => [t.caseId, t.passed, t.scores[0]])).toEqual([
      [
        "paris",
        false,
        {
          scorer: "stuck",
          error: {
            code: "timeout",
            message:
              'scorer "stuck" did not settle within 5000 ms; fix it, or raise its timeoutMs (or evaluate\'s scorerTimeoutMs)',
          },
        },
      ],
      ["rome", true, { scorer: "stuck", score: 1, passed: true }],
    ]);
    expect(result.status).toBe("completed");
    expect(result.passed).toBe(false);
    expect((await store.require("eval-stuck")).report.scorers[0]?.errors).toBe(1);
  });

  it("a scorer's own timeoutMs wins over scorerTimeoutMs", async () => {
    const clock = new DeterministicClock({ autoAdvance: false });
    const stuck = defineScorer("stuck", () => new Promise<number>(() => {}), { timeoutMs: 10 });
    const pending = evaluate({
      agent,
      dataset: cases.slice(0, 1),
      scorers: [stuck],
      clock,
      scorerTimeoutMs: 60_000,
    });
    await waitUntil(() => clock.pendingTimers === 1);
    clock.advance(10);
    const result = await pending;
    expect(result.trials[0]?.scores[0]).toMatchObject({ error: { code: "timeout" } });
  });

  it("cancelling the eval cuts off a stalled scorer: status cancelled, partial result saved", async () => {
    const controller = new AbortController();
    const live = setInterval(() => {}, 1_000); // the stalled scorer keeps a live timer
    const stalled = defineScorer("stalled", () => new Promise<number>(() => {}));
    const store = new EvalStore(new InMemoryKeyValueStore());
    try {
      const pending = evaluate({
        agent,
        dataset: cases,
        scorers: [stalled],
        concurrency: 1,
        signal: controller.signal,
        store,
        evalRunId: "eval-stalled",
      });
      await new Promise((resolve) => setImmediate(resolve));
      controller.abort();
      const result = await pending;
      expect(result.status).toBe("cancelled");
      expect(result.passed).toBe(false);
      expect(result.trials.map((t) => [t.caseId, t.scores[0]])).toEqual([
        [
          "paris",
          {
            scorer: "stalled",
            error: {
              code: "cancelled",
              message: 'scorer "stalled" was still running when the eval was cancelled',
            },
          },
        ],
      ]);
      expect((await store.require("eval-stalled")).status).toBe("cancelled");
    } finally {
      clearInterval(live);
    }
  });

  it("refuses a scorerTimeoutMs that is not a positive number", async () => {
    await expect(
      evaluate({ agent, dataset: cases, scorers: [exactMatch()], scorerTimeoutMs: 0 }),
    ).rejects.toMatchObject({
      code: "validation",
      details: { field: "scorerTimeoutMs" },
    });
  });
});
