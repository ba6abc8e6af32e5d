import {
  type FallbackAttempt,
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
  toTinyAgentsError,
  type Usage,
} from "@tinyagents/inference";
import { abortError } from "../context/abort.js";
import type { AgentEventOf } from "../contracts/agent-event.js";
import type { CostTotals } from "../contracts/cost-totals.js";
import { markFailedModel } from "../errors/failed-model.js";
import type { HookContext } from "../middleware/middleware.js";
import type { SoleModelCallAround } from "../middleware/model-call-around.js";
import type {
  ModelRegistration,
  ModelSelection,
  ResolvedModelBinding,
} from "../model-registry/model-registry.js";
import { backoffFor, isRetryable, shouldFallback } from "../retry/retry-policy.js";
import type { PendingBilling } from "./attempt-info.js";
import { requestDetails, responseDetails } from "./call-details.js";
import type { LoopSession } from "./loop-session.js";
import { asCallTimeout, completedEvent, failedEvent, resolvedFor } from "./model-call-records.js";
import type { OpenModel } from "./open-calls.js";
import { type AttemptFollowUp, type AttemptInfo, providerAttempt } from "./provider-attempt.js";
import { anchorResponse, shapeAnchors } from "./shape-anchors.js";

type ModelStartedEvent = AgentEventOf<"model.started">;

/**
 * The innermost model handler: resolve the model, call it with retry and backoff, and walk the
 * fallback chain when it keeps failing. Every attempt is bracketed by `model.started` and
 * `model.completed` / `model.failed`; every retry emits `retry.scheduled`, every switch
 * `fallback.selected`. The response records the `ResolvedModel` with its fallback history.
 *
 * The first attempt on the selected model is chained with `.then`: a call that succeeds at once
 * (nearly all of them) never suspends an async frame, and thousands of runs can be waiting on
 * their model at the same moment. Retry and fallback start at the first failure.
 */
export function resilientModelCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  request: ModelRequest,
  startedAt?: number,
  after?: HookContext<State, Ctx>,
): Promise<ModelResponse> {
  // A direct call with a sole wrap in split form (budget's): dispatched here, before the call
  // (as the onion would, just before its `next`), settled before the status entry ends.
  const wrap = after === undefined ? undefined : s.parts.middleware.soleModelCallAround;
  let wrapCall: unknown;
  let attemptStart = startedAt;
  if (wrap !== undefined) {
    try {
      wrapCall = wrap.dispatch(after as HookContext<State, Ctx>, request);
    } catch (error) {
      s.status.modelEnded();
      return Promise.reject(error);
    }
    // The wrap's work ran since the status entry's clock read: the attempt reads its own.
    attemptStart = undefined;
  }
  let call: ResilientCall<State, Ctx>;
  try {
    call = new ResilientCall(s, callId, request);
  } catch (error) {
    if (after === undefined) return Promise.reject(error);
    s.status.modelEnded();
    return Promise.reject(wrap === undefined ? error : wrap.fail(after, wrapCall, error));
  }
  if (after === undefined) return call.start(attemptStart);
  call.after = after;
  if (wrap !== undefined) {
    call.wrap = wrap;
    call.wrapCall = wrapCall;
  }
  return call.startAndFinish(attemptStart);
}

/**
 * A model selection with every key present (unset ones undefined): one literal, one shape. A
 * selection built key by key takes a shape per combination, reachable only while one lives, and
 * the optimized code that checks for it is discarded once a burst of runs ends (see shape-anchors.ts).
 */
function selectionOf(
  request: ModelRequest | undefined,
  previous: string | undefined,
  reusePrevious: boolean | undefined,
  agentDefault: string | undefined,
): ModelSelection {
  return {
    override: request?.model,
    previous,
    reusePrevious,
    hints: request?.modelHints,
    agentDefault,
    required: request?.requiredCapabilities,
  };
}

/** What a failed attempt leads to: another attempt on the same model, or the next model. */
type AfterFailure = "retry" | "next_model";

/**
 * One model call with its retries and fallbacks (attempts are sequential: one is current). It is
 * also the {@link AttemptInfo} of its first attempt (no object of its own per call); a retry or a
 * fallback gets a fresh one.
 */
class ResilientCall<State, Ctx> implements AttemptFollowUp, AttemptInfo {
  // AttemptInfo of the first attempt.
  readonly attempt = 1;
  emittedDeltas = false;
  usageUnknown: boolean | undefined = undefined;
  billedUsage: Usage | undefined = undefined;
  billedCost: CostTotals | undefined = undefined;
  streamBilling: PendingBilling | undefined = undefined;
  private readonly binding: ResolvedModelBinding<State>;
  private readonly maxRetries: number;
  private chainValue: ModelRegistration<State>[] | undefined;
  /** Only a fallback appends to it (then `resolvedFor` copies it); no fallback, no array. */
  private history: FallbackAttempt[] | undefined;
  private lastError: TinyAgentsError | undefined;
  private lastModel: string;
  // The current attempt.
  private registration: ModelRegistration<State>;
  private index = 0;
  private info: AttemptInfo;
  private started = 0;
  /** The call's request details were recorded (trace details: on its first `model.started`). */
  private described = false;
  /** The current attempt's entry in the run's open calls (closed by its terminal event). */
  private openAttempt: OpenModel | undefined;
  /**
   * Set when nothing sits between the loop and this call (no wrap, no journal): the call then
   * ends the run's status entry and runs `afterModel` with these hooks itself (`startAndFinish`).
   */
  after: HookContext<State, Ctx> | undefined = undefined;
  /** With `after`: the stack's sole wrap in split form, settled (or failed) before the call ends. */
  wrap: SoleModelCallAround | undefined = undefined;
  /** What the wrap's dispatch returned, for its settlement. */
  wrapCall: unknown = undefined;

  constructor(
    private readonly s: LoopSession<State, Ctx>,
    readonly callId: string,
    private readonly request: ModelRequest,
  ) {
    const { parts, ctx } = s;
    // A request that names no model, hint or capability (nearly all) resolves from the agent's
    // default alone: the run's one selection for those serves every such call.
    const plain =
      request.model === undefined &&
      request.modelHints === undefined &&
      request.requiredCapabilities === undefined &&
      request.reusePreviousModel !== true;
    if (plain && s.plainSelection === undefined)
      s.plainSelection = selectionOf(undefined, undefined, undefined, parts.agentDefaultModel);
    const binding = parts.models.resolve(
      plain
        ? (s.plainSelection as ModelSelection)
        : selectionOf(request, s.previousModel, request.reusePreviousModel, parts.agentDefaultModel),
    );
    this.binding = binding;
    for (const skip of binding.skipped) {
      if (skip.source === "request_override") {
        ctx.emit({
          type: "model.override_skipped",
          callId,
          requested: skip.name,
          resolved: binding.resolved.name,
          reason: skip.reason,
        });
      }
    }
    if (ctx.observed)
      ctx.emit({
        type: "route.selected",
        callId,
        model: binding.resolved.name,
        source: binding.resolved.source,
      });
    else ctx.skipEvent();
    this.maxRetries = Math.min(
      request.retry?.maxRetries ?? parts.policy.retry.maxRetries,
      parts.policy.limits.maxRetriesPerCall,
    );
    this.lastModel = binding.registration.name;
    this.registration = binding.registration;
    this.info = this;
    // A fallback name that is not registered fails every call at once, as a misconfiguration
    // should (not only once the primary model fails); without fallbacks there is nothing to build.
    if (parts.policy.fallback.length > 0) this.chain();
    shapeAnchors.modelCall = this;
  }

  /**
   * The first attempt, chained; anything unusual (abort, spent budget, failure) goes to `loop`.
   * `startedAt`: the clock read the caller made just before (this instant), reused for the attempt.
   */
  start(startedAt?: number): Promise<ModelResponse> {
    const { ctx } = this.s;
    const registration = this.binding.registration;
    if (ctx.aborted) return this.loop(1);
    let attempt: Promise<ModelResponse>;
    // Like the async function it replaces, this never throws: a clock or a listener that throws
    // rejects the call (a wrap's `next(r).catch(...)` must see it). Not an attempt failure: the
    // provider was not called (`providerAttempt` itself never throws, it rejects).
    try {
      // A spent attempt budget (retry middleware re-running this call) is refused without
      // counting; `loop` meets the same refusal and reports it.
      if (ctx.limits.admitAttempt(this.callId, registration.name) !== undefined) return this.loop(1);
      attempt = this.startAttempt(registration, 0, 1, startedAt);
    } catch (thrown) {
      return Promise.reject(thrown);
    }
    return attempt.then(
      (response) => {
        // As in `loop`: a response that cannot be recorded counts as the attempt's failure.
        try {
          return this.completed(response);
        } catch (thrown) {
          return this.recoverFromFirst(thrown);
        }
      },
      (thrown: unknown) => this.recoverFromFirst(thrown),
    );
  }

  /**
   * `start`, then what the loop's model phase does after the call (the status entry ends at the
   * call's end, `afterModel` hooks), in the same reaction on the common path: one promise layer
   * per model call instead of two.
   */
  startAndFinish(startedAt?: number): Promise<ModelResponse> {
    const { ctx } = this.s;
    const registration = this.binding.registration;
    if (ctx.aborted) return this.finishAfter(this.loop(1));
    try {
      // As in `start`: one look-up admits the attempt or sends a spent budget to `loop`.
      if (ctx.limits.admitAttempt(this.callId, registration.name) !== undefined)
        return this.finishAfter(this.loop(1));
      // The attempt settles with `firstAnswered` / `firstFailed` of its outcome, in its own reaction.
      return this.startAttempt(registration, 0, 1, startedAt, this);
    } catch (thrown) {
      this.s.status.modelEnded();
      return Promise.reject(this.wrapFailed(thrown));
    }
  }

  /** `startAndFinish`'s first attempt answered: record it, end the status entry, `afterModel`. */
  firstAnswered(response: ModelResponse): ModelResponse | Promise<ModelResponse> {
    let completed: ModelResponse;
    try {
      completed = this.completed(response);
    } catch (thrown) {
      return this.finishAfter(this.recoverFromFirst(thrown));
    }
    return this.finish(completed, this.s.modelEndedAt);
  }

  /** `startAndFinish`'s first attempt failed: retries and fallbacks, then the same ending. */
  firstFailed(thrown: unknown): Promise<ModelResponse> {
    return this.finishAfter(this.recoverFromFirst(thrown));
  }

  /** After a successful call: the status entry ends (at `endedAt`), then `afterModel`. */
  private finish(response: ModelResponse, endedAt?: number): ModelResponse | Promise<ModelResponse> {
    const { s } = this;
    if (this.wrap !== undefined) {
      try {
        this.wrap.settle(this.after as HookContext<State, Ctx>, this.wrapCall, response);
      } catch (thrown) {
        s.status.modelEnded();
        throw thrown;
      }
    }
    s.status.modelEnded(endedAt);
    s.status.phase("middleware");
    const stack = s.parts.middleware;
    if (stack.list.length === 0) return response;
    return stack.runValueHook(this.after as HookContext<State, Ctx>, "afterModel", response);
  }

  /** `finish` once a retry or fallback settled; a failure still ends the status entry. */
  private finishAfter(call: Promise<ModelResponse>): Promise<ModelResponse> {
    return call.then(
      (response) => this.finish(response, this.s.modelEndedAt),
      (thrown: unknown) => {
        this.s.status.modelEnded();
        throw this.wrapFailed(thrown);
      },
    );
  }

  /** The call failed: the error it rejects with, after the sole split wrap's failure (if any). */
  private wrapFailed(thrown: unknown): unknown {
    const wrap = this.wrap;
    return wrap === undefined
      ? thrown
      : wrap.fail(this.after as HookContext<State, Ctx>, this.wrapCall, thrown);
  }

  private async recoverFromFirst(thrown: unknown): Promise<ModelResponse> {
    const next = await this.afterFailure(thrown);
    return this.loop(next === "retry" ? 2 : this.maxRetries + 2);
  }

  /** The fallback chain: the selected model, then the policy's fallbacks (built on first need). */
  private chain(): ModelRegistration<State>[] {
    if (this.chainValue === undefined) {
      const { parts } = this.s;
      const chain = [this.binding.registration];
      for (const name of parts.policy.fallback) {
        if (name !== this.binding.registration.name) chain.push(parts.models.require(name));
      }
      this.chainValue = chain;
    }
    return this.chainValue;
  }

  /** The selected model from attempt `fromAttempt` on (past its last: straight to the fallback check), then the fallbacks. */
  private async loop(fromAttempt: number): Promise<ModelResponse> {
    const { ctx } = this.s;
    const { callId, maxRetries } = this;
    const chain = this.chain();
    let first = fromAttempt;
    for (let index = 0; index < chain.length; index++) {
      const registration = chain[index] as ModelRegistration<State>;
      if (index > 0 && this.lastError !== undefined) {
        const from = (chain[index - 1] as ModelRegistration<State>).name;
        ctx.emit({
          type: "fallback.selected",
          callId,
          from,
          to: registration.name,
          error: this.lastError.toJSON(),
        });
      }
      for (let attempt = first; attempt <= maxRetries + 1; attempt++) {
        if (ctx.aborted) throw abortError(ctx.abortHub, "before a model call");
        // One attempt budget per model per model call, shared with retry middleware that re-runs
        // this call: once a model's attempts are used up, its last failure stands for it.
        const capped = ctx.limits.admitAttempt(callId, registration.name);
        if (capped !== undefined) {
          ctx.emit({ type: "limit.reached", limit: capped.limit, value: capped.value, count: capped.count });
          this.lastError = ctx.limits.lastFailure(callId, registration.name) ?? capped.error;
          this.lastModel = registration.name;
          break;
        }
        try {
          return this.completed(await this.startAttempt(registration, index, attempt));
        } catch (thrown) {
          if ((await this.afterFailure(thrown)) === "next_model") break;
        }
      }
      first = 1;
      const lastError = this.lastError;
      if (lastError === undefined || !shouldFallback(lastError) || index === chain.length - 1) break;
      this.history ??= [];
      this.history.push({ name: registration.name, error: lastError.message, code: lastError.code });
    }
    if (this.lastError !== undefined) throw markFailedModel(this.lastError, this.lastModel);
    throw new TinyAgentsError("internal", "model call ended without a response or an error");
  }

  /** Start one (admitted) attempt: `model.started`, then the provider call. */
  private startAttempt(
    registration: ModelRegistration<State>,
    index: number,
    attempt: number,
    startedAt?: number,
    followUp?: AttemptFollowUp,
  ): Promise<ModelResponse> {
    const { ctx } = this.s;
    this.registration = registration;
    this.index = index;
    if (attempt > 1 || index > 0) this.info = { callId: this.callId, attempt, emittedDeltas: false };
    this.started = startedAt ?? ctx.clock.now();
    this.openAttempt = this.s.open.modelStarted(this.info, registration.name, this.started);
    const { endpoint } = registration.model;
    if (!ctx.observed) {
      ctx.skipEvent();
      return providerAttempt(this.s, registration, this.request, this.info, followUp);
    }
    // Two complete literals rather than an optional key added later (see `completedEvent`); only
    // a run with trace details adds one (`details`), to every call's first attempt alike.
    const started: ModelStartedEvent =
      endpoint === undefined
        ? {
            type: "model.started",
            callId: this.callId,
            model: registration.name,
            provider: registration.model.provider,
            providerModelId: registration.model.modelId,
            attempt,
          }
        : {
            type: "model.started",
            callId: this.callId,
            model: registration.name,
            provider: registration.model.provider,
            providerModelId: registration.model.modelId,
            attempt,
            endpoint,
          };
    const details = this.s.callDetails;
    if (details !== undefined && !this.described) {
      // The request's details, once per call: on its first attempt (later attempts send the same).
      this.described = true;
      const request = requestDetails(details, this.request);
      if (request !== undefined) started.details = request;
    }
    ctx.emit(started);
    return providerAttempt(this.s, registration, this.request, this.info, followUp);
  }

  /** The current attempt succeeded: record the resolved model, `model.completed`. */
  private completed(response: ModelResponse): ModelResponse {
    const { s, registration } = this;
    response.resolvedModel = resolvedFor(this.binding.resolved, registration, this.index, this.history);
    anchorResponse(response);
    s.previousModel = registration.name;
    // The call's end, also for the status record (see `callThroughStack`): one clock read.
    const endedAt = s.ctx.clock.now();
    s.modelEndedAt = endedAt;
    if (this.closeAttempt()) {
      if (s.ctx.observed) {
        const completed = completedEvent(
          this.callId,
          registration.name,
          endedAt - this.started,
          response,
          this.info.billedCost,
        );
        if (s.callDetails !== undefined) {
          const details = responseDetails(s.callDetails, response);
          if (details !== undefined) completed.details = details;
        }
        s.ctx.emit(completed);
      } else s.ctx.skipEvent();
    }
    return response;
  }

  /** Close the current attempt in the run's open calls; false when the run already ended it. */
  private closeAttempt(): boolean {
    const open = this.openAttempt;
    this.openAttempt = undefined;
    return open !== undefined && this.s.open.closeModel(open);
  }

  /** `model.failed` for the current attempt, unless it was already ended. */
  private failedEvent(error: TinyAgentsError): void {
    if (!this.closeAttempt()) return;
    const { ctx } = this.s;
    ctx.emit(failedEvent(this.info, this.registration.name, ctx.clock.now() - this.started, error.toJSON()));
  }

  /**
   * The current attempt failed: `model.failed`, then whether to retry this model (after the
   * backoff, `retry.scheduled`) or move on. Throws when the run was cancelled meanwhile.
   */
  private afterFailure(thrown: unknown): AfterFailure | Promise<AfterFailure> {
    const { ctx, parts } = this.s;
    const { callId, registration, info } = this;
    const attempt = info.attempt;
    const error = asCallTimeout(
      toTinyAgentsError(thrown, "provider"),
      registration.name,
      this.request.timeoutMs,
    );
    if (ctx.aborted) {
      // The run's cancellation (its deadline included) is what ended this attempt.
      const cancelled = abortError(ctx.abortHub, "during a model call");
      this.failedEvent(cancelled);
      throw cancelled;
    }
    this.failedEvent(error);
    ctx.limits.noteFailure(callId, registration.name, error);
    this.lastError = error;
    this.lastModel = registration.name;
    if (attempt > this.maxRetries || !isRetryable(error) || info.emittedDeltas) return "next_model";
    // No point waiting for a retry the shared attempt budget would refuse (the next attempt
    // reports the spent budget).
    if (!ctx.limits.hasAttemptLeft(callId, registration.name)) return "retry";
    const delayMs = backoffFor(parts.policy.retry, attempt, error);
    ctx.emit({ type: "retry.scheduled", callId, attempt: attempt + 1, delayMs, error: error.toJSON() });
    return ctx.clock.sleep(delayMs, ctx.signal).then(
      () => "retry" as const,
      () => {
        throw abortError(ctx.abortHub, "during retry backoff");
      },
    );
  }
}
