import {
  type Clock,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  StreamAccumulator,
  startTimer,
  streamFromResponse,
  type Timer,
  TinyAgentsError,
  toTinyAgentsError,
} from "@tinyagents/inference";
import { abortError, CallSignal, type RaceOptions, race } from "../context/abort.js";
import type { AbortHub } from "../context/abort-hub.js";
import type { ModelRegistration } from "../model-registry/model-registry.js";
import { foldUsage, markCallUnreported, ResponseBilling, StreamBilling } from "./attempt-billing.js";
import type { AttemptInfo } from "./attempt-info.js";
import type { LoopSession } from "./loop-session.js";
import { deltaHandler, endModelStream } from "./model-deltas.js";
import { type ReactionTarget, type Settlers, settledBy, watchCall } from "./settlers.js";
import { shapeAnchors } from "./shape-anchors.js";
import { StreamRacer } from "./stream-racer.js";

export type { AttemptInfo } from "./attempt-info.js";

/**
 * What a model call does once its first attempt settled, run in the attempt's own reaction (see
 * `ResilientCall.startAndFinish`): the response or the failure becomes the model phase's outcome
 * without a promise layer of its own between the attempt and the loop.
 */
export interface AttemptFollowUp {
  /** The attempt answered (usage folded): its outcome, or a throw that rejects the call. */
  firstAnswered(response: ModelResponse): ModelResponse | Promise<ModelResponse>;
  /** The attempt failed (or was aborted or timed out): retries, fallbacks, the call's outcome. */
  firstFailed(thrown: unknown): Promise<ModelResponse>;
}

/**
 * One provider call: `invoke` (unary runs) or `stream` (streaming runs, deltas through
 * `onModelDelta` middleware and out as `model.*_delta` events, then re-accumulated so edits reach
 * the stored response). Honours the run's abort signal and the request's timeout. Folds usage
 * and cost into the run on success. With a response cache attached (`withResponseCache`), the
 * call goes through it: hits and coalesced calls are `servedFromCache` and never billed.
 * With `followUp`, the returned promise settles with what `followUp` makes of the attempt's
 * outcome instead of the outcome itself.
 */
export function providerAttempt<State, Ctx>(
  s: LoopSession<State, Ctx>,
  registration: ModelRegistration<State>,
  request: ModelRequest,
  info: AttemptInfo,
  followUp?: AttemptFollowUp,
): Promise<ModelResponse> {
  const { ctx } = s;
  const timeoutMs = request.timeoutMs;
  const options = new AttemptOptions(s.state, ctx.clock, ctx.abortHub);
  // The hot path (a plain unary call): one object races the call, folds its usage and settles.
  if (!s.streaming && s.parts.responseCache === undefined) {
    let call: Promise<ModelResponse>;
    try {
      call = registration.model.invoke(request, options);
    } catch (error) {
      options.dispose();
      return followUp === undefined ? Promise.reject(error) : followUp.firstFailed(error);
    }
    return new UnaryAttempt(s, registration, info, options, timeoutMs, followUp).settle(call);
  }
  const raceOptions: RaceOptions = { hub: ctx.abortHub, where: "during a model call", clock: ctx.clock };
  if (timeoutMs !== undefined) {
    raceOptions.timeoutMs = timeoutMs;
    raceOptions.onTimeout = () => options.timeout(callTimeout(registration.name, timeoutMs));
  }
  let pending: Promise<ModelResponse>;
  try {
    pending = callProvider(s, registration, request, info, options, raceOptions);
  } catch (error) {
    options.dispose();
    return followUp === undefined ? Promise.reject(error) : followUp.firstFailed(error);
  }
  // `.then`, not an async frame: thousands of runs can sit here at once.
  const settled = pending.then(
    (response) => {
      options.dispose();
      // A stream's billing may have been folded already (the run ended the attempt meanwhile).
      const billing = info.streamBilling;
      if (billing !== undefined) billing.answered(response);
      else foldUsage(s, registration, info, response);
      return response;
    },
    (error: unknown) => {
      options.dispose();
      throw error;
    },
  );
  if (followUp === undefined) return settled;
  return settled.then(
    (response) => followUp.firstAnswered(response),
    (thrown: unknown) => followUp.firstFailed(thrown),
  );
}

/**
 * A plain unary provider call in flight: settles with the response (its usage and cost folded
 * into the run) once the provider answers, or fails as soon as the run aborts or the call's
 * timeout passes; the watcher, the timer and the call's signal are released either way. One
 * object and one promise where a generic `race()` and a `.then` took an options object, three
 * promises and seven closures (W1, W3). An abort or a timeout settles the call two microtasks
 * later, as the race and its `.then` did.
 */
class UnaryAttempt<State, Ctx> implements Settlers<ModelResponse>, ReactionTarget {
  resolve: ((outcome: ModelResponse | PromiseLike<ModelResponse>) => void) | undefined = undefined;
  reject: ((error: unknown) => void) | undefined = undefined;
  private timer: Timer | undefined;
  /** The outcome is decided (the provider answered, the run aborted, or the timeout passed). */
  private decided = false;

  /**
   * The run aborted (this attempt watches the run's hub as itself: no closure per call).
   * Abandoned after the request went out (a cancel, the timeout): the provider may still bill it.
   */
  runAborted(): void {
    this.timer?.cancel();
    if (!this.decided) markCallUnreported(this.s, this.info);
    this.failLater(abortError(this.s.ctx.abortHub, "during a model call"));
  }

  /** The call's timeout passed (its timer's callback, bound only for a call that has a timeout). */
  private timerFired(): void {
    this.s.ctx.abortHub.unwatch(this);
    if (!this.decided) markCallUnreported(this.s, this.info);
    const { registration, timeoutMs } = this;
    this.failLater(this.options.timeout(callTimeout(registration.name, timeoutMs as number)));
  }

  constructor(
    private readonly s: LoopSession<State, Ctx>,
    private readonly registration: ModelRegistration<State>,
    private readonly info: AttemptInfo,
    private readonly options: AttemptOptions<State>,
    private readonly timeoutMs: number | undefined,
    private readonly followUp: AttemptFollowUp | undefined,
  ) {
    shapeAnchors.unaryAttempt = this;
  }

  settle(call: Promise<ModelResponse>): Promise<ModelResponse> {
    const settled = settledBy(this);
    const { ctx } = this.s;
    const hub = ctx.abortHub;
    if (hub.aborted) {
      Promise.resolve(call).catch(() => {});
      this.failLater(abortError(hub, "during a model call"));
      return settled;
    }
    hub.watch(this);
    if (this.timeoutMs !== undefined)
      this.timer = startTimer(ctx.clock, this.timeoutMs, () => this.timerFired());
    watchCall(this.s, Promise.resolve(call), this);
    return settled;
  }

  /** The provider answered. */
  settledWith(value: unknown): void {
    if (!this.end()) return;
    const response = value as ModelResponse;
    try {
      foldUsage(this.s, this.registration, this.info, response);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.answer(response);
  }

  /** The provider failed. */
  failedWith(error: unknown): void {
    if (this.end()) this.fail(error);
  }

  /** Settle with the response, or with what the follow-up makes of it (a throw rejects). */
  private answer(response: ModelResponse): void {
    const followUp = this.followUp;
    if (followUp === undefined) {
      this.resolve?.(response);
      return;
    }
    let outcome: ModelResponse | Promise<ModelResponse>;
    try {
      outcome = followUp.firstAnswered(response);
    } catch (thrown) {
      this.reject?.(thrown);
      return;
    }
    this.resolve?.(outcome);
  }

  /** Reject with the failure, or settle with what the follow-up makes of it. */
  private fail(error: unknown): void {
    const followUp = this.followUp;
    if (followUp === undefined) this.reject?.(error);
    else this.resolve?.(followUp.firstFailed(error));
  }

  /** The provider settled: false when the outcome was already decided; else release everything. */
  private end(): boolean {
    if (this.decided) return false;
    this.decided = true;
    this.s.ctx.abortHub.unwatch(this);
    this.timer?.cancel();
    this.options.dispose();
    return true;
  }

  private failLater(error: TinyAgentsError): void {
    if (this.decided) return;
    this.decided = true;
    queueMicrotask(() => {
      this.options.dispose();
      this.fail(error);
    });
  }
}

function callTimeout(model: string, timeoutMs: number): TinyAgentsError {
  return new TinyAgentsError("timeout", `model call to "${model}" timed out after ${timeoutMs} ms`, {
    details: { scope: "model_call", limit: "model_call_timeout", value: timeoutMs },
  });
}

/**
 * The provider call when it streams and/or goes through the response cache (the plain unary
 * call is a {@link UnaryAttempt}).
 */
function callProvider<State, Ctx>(
  s: LoopSession<State, Ctx>,
  registration: ModelRegistration<State>,
  request: ModelRequest,
  info: AttemptInfo,
  options: AttemptOptions<State>,
  raceOptions: RaceOptions,
): Promise<ModelResponse> {
  const model = registration.model;
  const cache = s.parts.responseCache;
  const live = (): Promise<ModelResponse> =>
    s.streaming
      ? streamOnce(
          s,
          model,
          model.stream?.bind(model),
          () => model.invoke(request, options),
          request,
          options,
          info,
          raceOptions,
          registration,
        )
      : liveUnary(s, registration, request, info, options, raceOptions);
  if (cache === undefined) return live();
  return cache.call(s.ctx, model, registration.name, info.callId, request, s.streaming, {
    live,
    // A response that did not come from the provider: streaming runs replay it as deltas.
    replay: (cached) =>
      s.streaming
        ? streamOnce(
            s,
            model,
            undefined,
            () => Promise.resolve(cached),
            request,
            options,
            info,
            raceOptions,
            undefined,
          )
        : Promise.resolve(cached),
    wait: (promise) => race(promise, raceOptions),
  });
}

/**
 * A unary call that goes out through the response cache: its billing is pending from the
 * provider's answer until the attempt ends (after the cache write), so a run that ends the
 * attempt in between still folds it before the attempt's `model.failed`.
 */
function liveUnary<State, Ctx>(
  s: LoopSession<State, Ctx>,
  registration: ModelRegistration<State>,
  request: ModelRequest,
  info: AttemptInfo,
  options: AttemptOptions<State>,
  raceOptions: RaceOptions,
): Promise<ModelResponse> {
  const billing = new ResponseBilling(s, registration, info);
  info.streamBilling = billing;
  return race(registration.model.invoke(request, options), billedRace(s, info, raceOptions)).then(
    (response) => billing.arrived(response),
  );
}

/**
 * The race of a provider call that may be billed (not a cached replay, not a coalesced wait): cut
 * off by the run's abort or the call's timeout before it answered, the attempt's usage becomes
 * unknown, as a {@link UnaryAttempt}'s does (its `model.failed` says `usageUnknown`).
 */
function billedRace<State, Ctx>(
  s: LoopSession<State, Ctx>,
  info: AttemptInfo,
  raceOptions: RaceOptions,
): RaceOptions {
  return { ...raceOptions, onCutOff: () => markCallUnreported(s, info) };
}

async function streamOnce<State, Ctx>(
  s: LoopSession<State, Ctx>,
  model: { readonly provider: string; readonly modelId: string },
  stream: ((r: ModelRequest, o: object) => AsyncIterable<ModelStreamItem>) | undefined,
  invoke: () => Promise<ModelResponse>,
  request: ModelRequest,
  options: object,
  info: AttemptInfo,
  raceOptions: RaceOptions,
  /** The provider's registration, for a live call (a cached replay bills nothing). */
  billed: ModelRegistration<State> | undefined,
): Promise<ModelResponse> {
  // No `stream` (a model without one, or a cached replay): the answer becomes deltas once it
  // arrives; only a live call (`billed`) may be billed if the run cuts it off first.
  const source = stream
    ? stream(request, options)
    : streamFromResponse(
        await race(invoke(), billed === undefined ? raceOptions : billedRace(s, info, raceOptions)),
      );
  const iterator = source[Symbol.asyncIterator]();
  // The model's names label an in-stream error the adapter did not attribute ("by unknown" otherwise).
  const accumulator = new StreamAccumulator({ provider: model.provider, model: model.modelId });
  // The timeout bounds the whole call, not each item (one timer for the stream).
  const reader = new StreamRacer(
    iterator,
    raceOptions.hub,
    "while streaming a model response",
    raceOptions.timeoutMs,
    raceOptions.onTimeout,
    raceOptions.clock,
  );
  // A live stream's billing, which the run can settle while the stream is still in flight.
  const billing = billed === undefined ? undefined : new StreamBilling(s, billed, info, accumulator);
  info.streamBilling = billing;
  try {
    await reader.readAll(deltaHandler(s, info, accumulator));
    endModelStream(s, info, accumulator);
  } catch (error) {
    // Stop the provider stream (closes the HTTP body) before surfacing the failure.
    void iterator.return?.()?.catch?.(() => {});
    billing?.failed(error);
    const failure = s.ctx.aborted
      ? abortError(s.ctx.abortHub, "while streaming a model response")
      : toTinyAgentsError(error, "provider");
    // Middleware holding streamed text (a redactor's tail) flushes it before the failure surfaces.
    endModelStream(s, info, undefined, failure);
    if (s.ctx.aborted) throw failure;
    throw error;
  } finally {
    reader.dispose();
  }
  const response = accumulator.finish();
  billing?.streamed(response);
  return response;
}

/** Model call options; the per-call AbortController is only created if the model reads `signal`. */
class AttemptOptions<State> extends CallSignal implements ModelCallOptions<State> {
  readonly state: State;
  readonly clock: Clock;

  constructor(state: State, clock: Clock, hub: AbortHub) {
    super(hub);
    this.state = state;
    this.clock = clock;
    shapeAnchors.attemptOptions = this;
  }
}
