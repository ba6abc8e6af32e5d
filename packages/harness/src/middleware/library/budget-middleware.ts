import {
  emptyUsage,
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
  type Usage,
} from "@tinyagents/inference";
import { liveRunOf } from "../../context/run-context.js";
import type { RunContext } from "../../contracts/run-context.js";
import { estimateCost, type ModelPricing } from "../../cost/cost.js";
import type { HookContext, Middleware } from "../middleware.js";
import { wrapsModelCallAround } from "../model-call-around.js";
import { readsRequestOnly } from "../read-only-hooks.js";
import { type BudgetHold, BudgetTracker } from "./budget-tracker.js";
import { RunRequestEstimator } from "./estimate-request.js";
import { callable, fraction, middlewareName, nonNegative, optionError } from "./option-checks.js";
import { PerRun } from "./per-run.js";
import { SavedState } from "./saved-state.js";

/** Spending limits; every field optional, all fail-closed. Token limits count what providers report. */
export interface BudgetLimits {
  maxInputTokens?: number;
  /** Input tokens served from the provider's prompt cache (`cacheReadTokens`). */
  maxCachedInputTokens?: number;
  maxOutputTokens?: number;
  maxTotalTokens?: number;
  maxReasoningTokens?: number;
  /** US dollars. */
  maxCost?: number;
}

/** Options of {@link budgetMiddleware}. */
export interface BudgetOptions {
  limits: BudgetLimits;
  /** Fraction of a limit at which a one-time `budget.warning` is emitted (default 0.8). */
  warnAt?: number;
  /** The ledger; share one across a sub-agent tree to enforce one budget over it (default: a new one). */
  tracker?: BudgetTracker;
  /**
   * Prices by registry model name, for the cost of each call. Default: the cost the harness
   * recorded for the call (registered pricing, else its catalog).
   */
  pricing?: Record<string, ModelPricing>;
  /** Input-token estimate used for the pre-flight reservation (default `estimateRequestTokens`). */
  estimate?: (request: ModelRequest) => number;
  /** Middleware name (default `"budget"`). */
  name?: string;
}

type LimitKey = keyof BudgetLimits;

interface Measure {
  key: LimitKey;
  label: string;
  /** The measure in the ledger's usage and cost (read as they are, not copied). */
  read(usage: Readonly<Usage>, cost: number): number;
  /** Input-side limits also count reserved and estimated input tokens before dispatch. */
  projects: boolean;
}

const MEASURES: readonly Measure[] = [
  { key: "maxInputTokens", label: "input tokens", read: (u) => u.inputTokens, projects: true },
  {
    key: "maxCachedInputTokens",
    label: "cached input tokens",
    read: (u) => u.cacheReadTokens,
    projects: false,
  },
  { key: "maxOutputTokens", label: "output tokens", read: (u) => u.outputTokens, projects: false },
  { key: "maxTotalTokens", label: "total tokens", read: (u) => u.totalTokens, projects: true },
  {
    key: "maxReasoningTokens",
    label: "reasoning tokens",
    read: (u) => u.reasoningTokens,
    projects: false,
  },
  { key: "maxCost", label: "cost (USD)", read: (_u, cost) => cost, projects: false },
];

/**
 * Token and cost budgets, enforced before money is spent:
 * - pre-flight: blocks the call — `budget.exceeded { blocked: true }`, then a `limit_exceeded`
 *   error — when a limit is already used up (used >= max; checked early in `beforeModel`), or
 *   when used + reserved + the estimated input of the request actually dispatched would pass
 *   the input or total limit (checked in `wrapModelCall`, just before `next`). A limit of N
 *   allows exactly N.
 * - reservation (`wrapModelCall`, around `next`): the estimate is reserved (`budget.reserved`)
 *   only while the call is actually dispatched, so a call that never happens — a later
 *   middleware's `beforeModel` throws or requests control, an outer `wrapModelCall` answers
 *   without calling `next`, the run is aborted first — holds nothing. Each dispatch (a retry
 *   middleware calling `next` again included) reserves and settles on its own.
 * - settlement (when `next` returns): releases the reservation, records the reported usage and
 *   cost (responses served from a local cache are free), emits `budget.reconciled`, a one-time
 *   `budget.warning` per limit at `warnAt`, and a one-time `budget.exceeded { blocked: false }`
 *   when a call went past a limit (the next call is then blocked). A failed call releases its
 *   reservation and records nothing. A failed run (`onError`) and the run's end release whatever
 *   the run still holds. The returned middleware exposes its `tracker`.
 * - pause and resume: what the run itself spent (the usage and cost this middleware recorded for
 *   its calls) is saved in the `PausedRun` (`saveState`); on resume the tracker counts it once
 *   ({@link BudgetTracker.countResumed}): nothing is added when the run paused against this
 *   same tracker, all of it when it paused elsewhere (another process, a fresh tracker). Spending
 *   of other runs sharing a tracker (sub-agents, other runs) is not the paused run's to carry:
 *   persist such a ledger yourself.
 * Throws `validation` at construction for negative limits, no limits, or `warnAt` outside (0, 1].
 */
export function budgetMiddleware<State = unknown, Ctx = unknown>(
  options: BudgetOptions,
): Middleware<State, Ctx> & { readonly tracker: BudgetTracker } {
  const name = middlewareName("budget", options?.name);
  if (
    typeof options !== "object" ||
    options === null ||
    typeof options.limits !== "object" ||
    options.limits === null
  ) {
    throw optionError(
      name,
      "limits",
      "is required: budgetMiddleware({ limits: { maxTotalTokens: 100_000 } })",
    );
  }
  const limits: { measure: Measure; max: number }[] = [];
  for (const measure of MEASURES) {
    const max = options.limits[measure.key];
    if (max !== undefined) limits.push({ measure, max: nonNegative(name, `limits.${measure.key}`, max) });
  }
  if (limits.length === 0)
    throw optionError(name, "limits", `must set at least one of ${MEASURES.map((m) => m.key).join(", ")}`);
  const warnAt = options.warnAt === undefined ? 0.8 : fraction(name, "warnAt", options.warnAt);
  const tracker = options.tracker ?? new BudgetTracker();
  if (!(tracker instanceof BudgetTracker)) throw optionError(name, "tracker", "must be a BudgetTracker");
  const custom = options.estimate === undefined ? undefined : callable(name, "estimate", options.estimate);
  const pricing = options.pricing;
  const perRun = new PerRun<RunBudget>(() => ({
    inFlight: [],
    calls: 0,
    usage: emptyUsage(),
    cost: 0,
    estimator: custom === undefined ? new RunRequestEstimator() : undefined,
  }));
  const releaseRun = (run: RunContext<unknown>) => {
    const held = perRun.of(run).inFlight;
    for (const hold of held) tracker.releaseHold(hold);
    held.length = 0;
  };

  /** Throws (after `budget.exceeded { blocked: true }`) when a call estimated at `estimated` must not go out. */
  const preflight = (run: RunContext<unknown>, estimated: number): void => {
    // The ledger as it is now, without a copy (its usage object is replaced, never edited).
    const usage = tracker.usage;
    const cost = tracker.cost;
    const reserved = tracker.reservedInputTokens;
    for (const { measure, max } of limits) {
      const used = measure.read(usage, cost);
      const projected = measure.projects ? used + reserved + estimated : used;
      // Written so that a NaN blocks: fail closed.
      const blocked = measure.projects ? !(projected <= max) : !(used < max);
      if (!blocked) continue;
      const reason = measure.projects
        ? `${measure.label}: used ${used} + reserved ${reserved} + estimated ${estimated} would exceed ${max}`
        : `${measure.label}: used ${used} of ${max}`;
      run.emit({ type: "budget.exceeded", limit: measure.key, used, max, blocked: true, reason });
      throw new TinyAgentsError(
        "limit_exceeded",
        `budget exceeded (${reason}); the model call was blocked before dispatch — raise BudgetLimits.${measure.key} or reduce the work`,
        { details: { limit: `budget.${measure.key}`, value: max, count: projected, middleware: name } },
      );
    }
  };

  /** Record one dispatched call's outcome and report warnings / overruns. */
  const settle = (
    run: RunContext<unknown>,
    spent: { calls: number; usage: Usage; cost: number },
    callId: string,
    estimated: number,
    response: ModelResponse,
    costBefore: number,
  ): void => {
    const usage = response.usage;
    if (usage !== undefined && response.servedFromCache !== true) {
      const prices = pricing?.[response.resolvedModel?.name ?? ""];
      const cost =
        pricing !== undefined
          ? prices === undefined
            ? 0
            : estimateCost(prices, usage).total
          : Math.max(0, runCost(run) - costBefore);
      tracker.record(usage, cost);
      spent.calls++;
      addUsageTo(spent.usage, usage);
      spent.cost += cost;
    }
    run.emit({
      type: "budget.reconciled",
      callId,
      estimatedInputTokens: estimated,
      actualInputTokens: usage?.inputTokens ?? 0,
    });
    const spentUsage = tracker.usage;
    const spentCost = tracker.cost;
    for (const { measure, max } of limits) {
      const used = measure.read(spentUsage, spentCost);
      if (used >= warnAt * max && tracker.firstReport(`warning:${measure.key}`)) {
        const reason = `${measure.label}: used ${used} of ${max} (${max === 0 ? 100 : Math.round((used / max) * 100)}%)`;
        run.emit({ type: "budget.warning", limit: measure.key, used, max, reason });
      }
      if (used > max && tracker.firstReport(`exceeded:${measure.key}`)) {
        const reason = `${measure.label}: used ${used} of ${max}`;
        run.emit({ type: "budget.exceeded", limit: measure.key, used, max, blocked: false, reason });
      }
    }
  };

  return {
    name,
    changes: "metadata",
    tracker,
    // Fail early, before later middleware do work for a call that cannot go out: a limit is
    // used up already. The estimate is checked (once) on the request actually dispatched, and
    // nothing is reserved here: the call may still never happen. It only reads: the stack need
    // not watch the prompt prefix around it.
    beforeModel: readsRequestOnly((ctx: HookContext<State, Ctx>): void => {
      preflight(ctx.run, 0);
    }),
    // Split around `next` (see `wrapsModelCallAround`): the stack settles the call in the same
    // reaction that closes the hook's bracket, no promise layer of its own.
    wrapModelCall: wrapsModelCallAround<DispatchedCall, State, Ctx>({
      dispatch(ctx, request) {
        const run = ctx.run;
        const state = perRun.of(run);
        // The request as dispatched (later middleware may have grown it); checked and reserved in
        // one synchronous step, so runs sharing the tracker cannot both pass on the same room.
        const estimated =
          custom === undefined
            ? (state.estimator as RunRequestEstimator).estimate(request)
            : nonNegative(name, "estimate (its result)", custom(request)); // NaN would switch the limit off
        preflight(run, estimated);
        const hold = tracker.hold(estimated);
        const call: DispatchedCall = { state, callId: ctx.callId ?? "", estimated, hold, costBefore: 0 };
        state.inFlight.push(hold);
        try {
          run.emit({ type: "budget.reserved", callId: call.callId, estimatedInputTokens: estimated });
          call.costBefore = pricing === undefined ? runCost(run) : 0;
        } catch (error) {
          releaseHold(tracker, state.inFlight, hold);
          throw error;
        }
        return call;
      },
      settled(ctx, call, response) {
        releaseHold(tracker, call.state.inFlight, call.hold);
        settle(ctx.run, call.state, call.callId, call.estimated, response, call.costBefore);
      },
      failed(_ctx, call) {
        releaseHold(tracker, call.state.inFlight, call.hold);
      },
    }),
    onError(ctx) {
      releaseRun(ctx.run);
    },
    afterAgent(ctx) {
      releaseRun(ctx.run);
    },
    // Nothing is in flight at a pause: only what the run spent is carried over.
    saveState(ctx) {
      const spent = perRun.of(ctx.run);
      if (spent.calls === 0) return undefined;
      const saved = { calls: spent.calls, usage: { ...spent.usage }, cost: spent.cost };
      tracker.notePaused(ctx.run.runId, saved);
      return saved;
    },
    restoreState(ctx, saved) {
      const read = new SavedState(name, saved);
      const usage = read.nested("usage");
      const spent = perRun.of(ctx.run);
      spent.calls = read.count("calls");
      spent.usage = {
        inputTokens: usage.amount("inputTokens"),
        outputTokens: usage.amount("outputTokens"),
        totalTokens: usage.amount("totalTokens"),
        cacheReadTokens: usage.amount("cacheReadTokens"),
        cacheWriteTokens: usage.amount("cacheWriteTokens"),
        reasoningTokens: usage.amount("reasoningTokens"),
      };
      spent.cost = read.amount("cost");
      tracker.countResumed(ctx.run.runId, { usage: spent.usage, cost: spent.cost });
    },
  };
}

/**
 * Per run: the reservations of its calls in flight, for `onError` / `afterAgent`; what its calls
 * spent (recorded in the tracker), saved when it pauses; and the default estimate's memory of the
 * run's previous request.
 */
interface RunBudget {
  inFlight: BudgetHold[];
  calls: number;
  usage: Usage;
  cost: number;
  estimator: RunRequestEstimator | undefined;
}

/** One dispatched call, from its reservation to its settlement. */
interface DispatchedCall {
  readonly state: RunBudget;
  readonly callId: string;
  readonly estimated: number;
  readonly hold: BudgetHold;
  /** The run's cost before the call (without `pricing`: the call's cost is the difference). */
  costBefore: number;
}

/**
 * The run's cost so far (US dollars): read from the harness's own run context without copying
 * its status record, else from `status()` (a context built by hand).
 */
function runCost(run: RunContext<unknown>): number {
  const live = liveRunOf(run);
  return (live !== undefined ? live.costTotal() : run.status()?.cost.total) ?? 0;
}

/**
 * Add `usage` to the run's own running `total` in place (`addUsage` without a new object per
 * call): `total` is the run's alone, copied when it is saved.
 */
function addUsageTo(total: Usage, usage: Usage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.totalTokens += usage.totalTokens;
  total.cacheReadTokens += usage.cacheReadTokens;
  total.cacheWriteTokens += usage.cacheWriteTokens;
  total.reasoningTokens += usage.reasoningTokens;
}

/**
 * Release a dispatched call's `hold` and remove it from its run's holds in flight (usually the
 * only one: a run's calls are sequential).
 */
function releaseHold(tracker: BudgetTracker, held: BudgetHold[], hold: BudgetHold): void {
  tracker.releaseHold(hold);
  const at = held.indexOf(hold);
  if (at < 0) return;
  held[at] = held[held.length - 1] as BudgetHold;
  held.pop();
}
