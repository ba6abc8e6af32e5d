import {
  type ModelResponse,
  recordUsage,
  type StreamAccumulator,
  TinyAgentsError,
} from "@tinyagents/inference";
import { addCost, estimateCost, type ModelPricing, markCostUnknown } from "../cost/cost.js";
import { lookupPricing } from "../cost/lookup-pricing.js";
import { markUsageUnreported } from "../cost/unknown-usage.js";
import type { ModelRegistration } from "../model-registry/model-registry.js";
import type { AttemptInfo, PendingBilling } from "./attempt-info.js";
import type { LoopSession } from "./loop-session.js";

/**
 * What a streamed provider attempt billed, folded into the run exactly once: when its stream
 * ends (`answered` / `failed`), or earlier, when the run ends the attempt while it is still in
 * flight (`OpenCalls.closeAll` calls `settle`). So the attempt's `model.failed` carries what it
 * billed, and no `usage.recorded` / `cost.recorded` of it comes after its end: the stream's own
 * rejection reaches `failed` only a few microtasks after the run ended the attempt.
 */
export class StreamBilling<State, Ctx> implements PendingBilling {
  private settled = false;
  /** The whole response, once the stream ended (its fold waits for the attempt's reaction). */
  private response: ModelResponse | undefined = undefined;

  constructor(
    private readonly s: LoopSession<State, Ctx>,
    private readonly registration: ModelRegistration<State>,
    private readonly info: AttemptInfo,
    private readonly accumulator: StreamAccumulator,
  ) {}

  /** The stream ended with `response`; it is folded by `answered` (or by `settle` before that). */
  streamed(response: ModelResponse): void {
    this.response = response;
  }

  /** The attempt answered with `response`: fold its usage and cost, unless already folded. */
  answered(response: ModelResponse): void {
    if (this.settled) return;
    this.settled = true;
    foldUsage(this.s, this.registration, this.info, response);
  }

  /** The stream failed with `error`: fold what it reported (see {@link foldFailedStream}). */
  failed(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    foldFailedStream(this.s, this.registration, this.info, this.accumulator, error);
  }

  /**
   * The run ends the attempt now (`runError`: why): fold what it billed so far, so the terminal
   * event about to be emitted carries it. A finished stream folds its whole response; one still
   * streaming folds what it reported and marks the rest unknown (the provider may bill it).
   */
  settle(runError: TinyAgentsError): void {
    if (this.response !== undefined) this.answered(this.response);
    else this.failed(runError);
  }
}

/**
 * A unary call's billing while something still stands between the provider's answer and the
 * attempt's end (the response cache's write): folded once, when the attempt answers, or when the
 * run ends the attempt first, if the provider had answered by then. A call still in flight at
 * that point is marked unknown by its race (`billedRace`).
 */
export class ResponseBilling<State, Ctx> implements PendingBilling {
  private settled = false;
  private response: ModelResponse | undefined = undefined;

  constructor(
    private readonly s: LoopSession<State, Ctx>,
    private readonly registration: ModelRegistration<State>,
    private readonly info: AttemptInfo,
  ) {}

  /** The provider answered with `response` (folded by `answered`, or by `settle` before that). */
  arrived(response: ModelResponse): ModelResponse {
    this.response = response;
    return response;
  }

  answered(response: ModelResponse): void {
    if (this.settled) return;
    this.settled = true;
    foldUsage(this.s, this.registration, this.info, response);
  }

  settle(_runError: TinyAgentsError): void {
    if (this.response !== undefined) this.answered(this.response);
  }
}

/**
 * A stream that failed after the provider began answering may have been billed: fold the usage it
 * reported before failing, or, when it reported none, make the run's usage and cost lower bounds
 * (`unknown`), never a known zero for a call the provider may charge. A stream that failed before
 * it began (refused, unreachable) was not billed and changes nothing.
 */
function foldFailedStream<State, Ctx>(
  s: LoopSession<State, Ctx>,
  registration: ModelRegistration<State>,
  info: AttemptInfo,
  accumulator: StreamAccumulator,
  error: unknown,
): void {
  const usage = accumulator.reportedUsage;
  if (usage !== undefined) {
    // The call did not finish: what it reported may not be all it used.
    foldUsage(s, registration, info, accumulator.finish());
  } else if (!accumulator.started && !s.ctx.aborted && !TinyAgentsError.isInstance(error, "timeout")) {
    return; // refused before it began (an error status, unreachable): nothing billed
  }
  markCallUnreported(s, info);
}

/**
 * A call that may have been billed reported no (or not all its) usage: the run's totals become
 * lower bounds, and the attempt's `model.failed` says so (`usageUnknown`) for the projections.
 */
export function markCallUnreported<State, Ctx>(s: LoopSession<State, Ctx>, info: AttemptInfo): void {
  markUsageUnreported(s.run);
  info.usageUnknown = true;
  if (s.turnAccounting !== undefined) s.turnAccounting.unreported = true;
}

/**
 * Fold a billed response's usage and cost into the run (a cache-served one is not billed):
 * `usage.recorded` and, for a priced model, `cost.recorded`; the attempt keeps both for its
 * `model.completed` / `model.failed`, which carries them into an `"essential"` journal.
 */
export function foldUsage<State, Ctx>(
  s: LoopSession<State, Ctx>,
  registration: ModelRegistration<State>,
  info: AttemptInfo,
  response: ModelResponse,
): void {
  const usage = response.usage;
  if (response.servedFromCache === true) return;
  if (usage === undefined) {
    // The call happened but reported no usage (a stream without a usage chunk): the run's
    // tokens and money are a lower bound from here on, never a silent zero.
    markUsageUnreported(s.run);
    if (s.turnAccounting !== undefined) s.turnAccounting.unreported = true;
    return;
  }
  const callId = info.callId;
  info.billedUsage = usage;
  s.run.usage = recordUsage(s.run.usage, usage);
  if (s.ctx.observed) s.ctx.emit({ type: "usage.recorded", callId, model: registration.name, usage });
  else s.ctx.skipEvent();
  let cost: ReturnType<typeof estimateCost> | undefined;
  // Registered pricing wins; otherwise the built-in catalog; otherwise the cost is unknown (never zero).
  const pricing = registration.pricing ?? catalogPricing(registration);
  if (pricing !== undefined) {
    cost = estimateCost(pricing, usage);
    s.run.cost = addCost(s.run.cost, cost);
    info.billedCost = cost;
    s.ctx.emit({ type: "cost.recorded", callId, model: registration.name, cost });
  } else if (s.run.cost.unknown !== true) {
    s.run.cost = markCostUnknown(s.run.cost);
  }
  // A journaled run records what its model step folded in, so a replay re-applies it.
  const accounting = s.turnAccounting;
  if (accounting !== undefined) {
    accounting.usage.push(usage);
    accounting.cost.push(cost ?? null);
  }
}

/** The catalog price of a registered model, looked up once per registration. */
function catalogPricing<State>(registration: ModelRegistration<State>): ModelPricing | undefined {
  if (registration.catalogPricing === undefined) {
    registration.catalogPricing =
      lookupPricing(registration.model.provider, registration.model.modelId) ?? null;
  }
  return registration.catalogPricing ?? undefined;
}
