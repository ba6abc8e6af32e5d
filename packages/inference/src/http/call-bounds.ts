import { type Clock, startTimer, systemClock } from "../clock/clock.js";
import type { Timer } from "../clock/timer-queue.js";
import { TinyAgentsError, validationError } from "../errors/tinyagents-error.js";
import { resolveStreamIdleTimeout } from "./stream-idle-timeout.js";

/**
 * Default bound on a whole model call in the HTTP adapters (headers and body), when neither the
 * model's `timeoutMs` option nor `ModelRequest.timeoutMs` sets one. Ten minutes: long enough for
 * a long reasoning answer, short enough that a server trickling bytes forever ends.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 600_000;

/**
 * Default wait for the response headers of a STREAMED call. Servers send the headers of a
 * stream at once (before the first token), so a minute without them means a silent or overloaded
 * server. Unary calls are not subject to it: most servers send their headers with the finished
 * answer, which can take minutes; the total call timeout bounds that wait.
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

/** `details.limit` of the total call timeout error. */
export const CALL_TIMEOUT_LIMIT = "model_call_timeout";
/** `details.limit` of the headers timeout error. */
export const HEADERS_TIMEOUT_LIMIT = "headers_timeout";

/** The time bounds of one model call, in ms; `0` means "no bound". */
export interface CallBoundSettings {
  /** The whole call (headers and body). */
  timeoutMs: number;
  /** From sending the request to the response headers (streamed calls only). */
  headersTimeoutMs: number;
  /** Longest wait for progress (an event or line with data) in a streamed body. */
  streamIdleTimeoutMs: number;
}

/** The bound options a model takes (each `undefined` gives its default; `0` or `Infinity` removes it). */
export interface CallBoundOptions {
  timeoutMs?: number | undefined;
  headersTimeoutMs?: number | undefined;
  streamIdleTimeoutMs?: number | undefined;
}

/**
 * A model's bounds with the defaults applied ({@link DEFAULT_CALL_TIMEOUT_MS},
 * {@link DEFAULT_HEADERS_TIMEOUT_MS}, `DEFAULT_STREAM_IDLE_TIMEOUT_MS`). Throws a `validation`
 * error naming `who` and the field for a value that is not a number >= 0.
 */
export function resolveCallBounds(options: CallBoundOptions, who: string): CallBoundSettings {
  return {
    timeoutMs: resolveBound(options.timeoutMs, DEFAULT_CALL_TIMEOUT_MS, "timeoutMs", who),
    headersTimeoutMs: resolveBound(
      options.headersTimeoutMs,
      DEFAULT_HEADERS_TIMEOUT_MS,
      "headersTimeoutMs",
      who,
    ),
    streamIdleTimeoutMs: resolveStreamIdleTimeout(options.streamIdleTimeoutMs, who),
  };
}

function resolveBound(value: unknown, fallback: number, field: string, who: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw validationError(
      `${who}: ${field} must be a number of milliseconds >= 0 (0 or Infinity removes the bound), got ${typeof value === "string" ? JSON.stringify(value) : String(value)}`,
      { field },
    );
  }
  return value;
}

/** The bounds of one call: the request's fields win over the model's. */
export function boundsForRequest(
  model: CallBoundSettings,
  request: {
    timeoutMs?: number | undefined;
    headersTimeoutMs?: number | undefined;
    streamIdleTimeoutMs?: number | undefined;
  },
): CallBoundSettings {
  return {
    timeoutMs: request.timeoutMs ?? model.timeoutMs,
    headersTimeoutMs: request.headersTimeoutMs ?? model.headersTimeoutMs,
    streamIdleTimeoutMs: request.streamIdleTimeoutMs ?? model.streamIdleTimeoutMs,
  };
}

/** Facts for {@link CallBounds}. */
export interface CallBoundsInit {
  /** The caller's signal (`ModelCallOptions.signal`); never handed to `fetch` itself. */
  signal?: AbortSignal | undefined;
  /** The call's clock (`ModelCallOptions.clock`; default the system clock; see {@link limitClock}). */
  clock?: Clock | undefined;
  bounds: CallBoundSettings;
  /** A streamed call: the headers timeout applies. */
  streaming: boolean;
  provider: string;
  model?: string | undefined;
}

/**
 * The time bounds of one model call, on the call's clock: one child `signal` that aborts when the
 * caller's signal does, when the total timeout passes, or when the headers do not arrive in time
 * (streamed calls) — the last two with a typed `timeout` error as the abort reason, which
 * `abortedError` returns as it is. Pass `signal` and `clock` to `postJson` and the body readers,
 * call {@link headersReceived} when the response arrives, and {@link dispose} in a `finally`.
 *
 * The caller's signal is never handed to `fetch`: the platform fetch (undici) adds an abort
 * listener to the signal it gets and never removes it, so a long-lived caller signal would
 * collect one listener per call.
 */
export class CallBounds {
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly bounds: CallBoundSettings;
  private readonly controller = new AbortController();
  private readonly caller: AbortSignal | undefined;
  private readonly onCallerAbort = (): void => this.controller.abort(this.caller?.reason);
  private total: Timer | undefined;
  private headers: Timer | undefined;

  constructor(private readonly init: CallBoundsInit) {
    this.signal = this.controller.signal;
    this.clock = limitClock(init.clock);
    this.bounds = init.bounds;
    this.caller = init.signal;
    if (this.caller !== undefined) {
      if (this.caller.aborted) this.controller.abort(this.caller.reason);
      else this.caller.addEventListener("abort", this.onCallerAbort, { once: true });
    }
    if (this.controller.signal.aborted) return;
    const { timeoutMs, headersTimeoutMs } = init.bounds;
    if (isBound(timeoutMs)) {
      this.total = startTimer(this.clock, timeoutMs, () => this.expire(CALL_TIMEOUT_LIMIT, timeoutMs));
    }
    if (
      init.streaming &&
      isBound(headersTimeoutMs) &&
      !(isBound(timeoutMs) && headersTimeoutMs >= timeoutMs)
    ) {
      this.headers = startTimer(this.clock, headersTimeoutMs, () =>
        this.expire(HEADERS_TIMEOUT_LIMIT, headersTimeoutMs),
      );
    }
  }

  /** The response headers arrived: the headers timeout no longer applies. */
  headersReceived(): void {
    this.headers?.cancel();
    this.headers = undefined;
  }

  /** Cancel the timers and detach from the caller's signal. Never throws. */
  dispose(): void {
    this.total?.cancel();
    this.headersReceived();
    this.total = undefined;
    this.caller?.removeEventListener("abort", this.onCallerAbort);
  }

  private expire(limit: string, ms: number): void {
    if (this.controller.signal.aborted) return;
    this.controller.abort(
      callBoundError({ limit, ms, provider: this.init.provider, model: this.init.model }),
    );
  }
}

/**
 * The clock a call's limits run on: `clock` when it has `setTimer` (the system clock,
 * `DeterministicClock`), else the system clock. A limit armed as a `sleep` on a sleep-only clock
 * would MOVE that clock's time (a virtual clock advances for sleeps) or fire at once (a clock
 * whose sleeps return immediately), so a 10-minute safety net would end every call; such clocks
 * keep their sleeps for waits (backoff) and the call bounds run in real time.
 */
export function limitClock(clock: Clock | undefined): Clock {
  return clock !== undefined && clock.setTimer !== undefined ? clock : systemClock;
}

function isBound(ms: number): boolean {
  return ms > 0 && ms !== Number.POSITIVE_INFINITY;
}

/** Facts for {@link callBoundError}. */
export interface CallBoundFacts {
  /** {@link CALL_TIMEOUT_LIMIT} or `HEADERS_TIMEOUT_LIMIT`. */
  limit: string;
  ms: number;
  provider: string;
  model?: string | undefined;
}

/**
 * The `timeout` error of a call that hit its total or headers bound: the message names the limit
 * and the option that changes it; `details: { scope: "model_call", limit, value, provider, model }`
 * (`scope: "model_call"` makes retry and fallback logic treat it like any model call timeout).
 */
export function callBoundError(facts: CallBoundFacts): TinyAgentsError {
  const who = facts.model === undefined ? facts.provider : `${facts.provider} ${facts.model}`;
  const message =
    facts.limit === HEADERS_TIMEOUT_LIMIT
      ? `${who} timed out after ${facts.ms} ms waiting for the response headers (the headers timeout); raise \`headersTimeoutMs\` (a model option or a request field; 0 removes it) or check that the endpoint is up`
      : `the call to ${who} timed out after ${facts.ms} ms (the total call timeout); raise \`timeoutMs\` (a model option or a request field; 0 removes it) or check the endpoint`;
  return new TinyAgentsError("timeout", message, {
    details: {
      scope: "model_call",
      limit: facts.limit,
      value: facts.ms,
      provider: facts.provider,
      ...(facts.model === undefined ? {} : { model: facts.model }),
    },
  });
}
