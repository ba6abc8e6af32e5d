import { type Clock, startTimer, type Timer, TinyAgentsError } from "@tinyagents/inference";
import { cancelled } from "../errors/factories.js";
import type { AbortHub } from "./abort-hub.js";

/** Something that was aborted for a reason: an `AbortSignal` or the run's `AbortHub`. */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
}

/** The error a run sees when it is cancelled: the abort reason if it is ours, else `cancelled`. */
export function abortError(source: AbortSource, where: string): TinyAgentsError {
  const reason: unknown = source.reason;
  return TinyAgentsError.isInstance(reason) ? reason : cancelled(where, reason);
}

/** Throw when the signal (or the run's hub) has aborted. */
export function throwIfAborted(source: AbortSource, where: string): void {
  if (source.aborted) throw abortError(source, where);
}

/** Options of {@link race}. */
export interface RaceOptions {
  hub: AbortHub;
  /** Describes the moment, for the cancellation message. */
  where: string;
  /** Budget on `clock`; when it passes, `onTimeout()` is called and its error rejects the race. */
  timeoutMs?: number;
  /** The clock the budget is measured on (the run's clock); required with `timeoutMs`. */
  clock?: Clock;
  onTimeout?: () => TinyAgentsError;
  /**
   * After the timeout, how long to keep waiting for `promise` to settle (a call told to stop
   * through its signal gets this long to clean up) before giving up on it; the race rejects with
   * the timeout error as soon as it settles, or with `onAbandon()` when the grace runs out.
   */
  graceMs?: number;
  onAbandon?: () => TinyAgentsError;
  /**
   * Called once when the run's abort or the timeout ends the race while `promise` is still
   * pending (not when the run had aborted before the race began): a provider call abandoned in
   * flight may have been billed.
   */
  onCutOff?: () => void;
}

/**
 * Settle with `promise`, or reject as soon as the run aborts or the timeout passes. Cleans up
 * its watcher and timer either way, so nothing outlives the race.
 */
export function race<T>(promise: Promise<T>, options: RaceOptions): Promise<T> {
  const { hub, where } = options;
  if (hub.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortError(hub, where));
  }
  return new Promise<T>((resolve, reject) => {
    let timer: Timer | undefined;
    // Set once the timeout fired: from then on the race only ends with that error.
    let timedOut: TinyAgentsError | undefined;
    const onAbort = () => {
      timer?.cancel();
      if (timedOut === undefined) options.onCutOff?.();
      reject(abortError(hub, where));
    };
    hub.watch(onAbort);
    const { clock, timeoutMs, graceMs } = options;
    if (timeoutMs !== undefined && clock !== undefined) {
      timer = startTimer(clock, timeoutMs, () => {
        options.onCutOff?.();
        const error = options.onTimeout?.() ?? new TinyAgentsError("timeout", `timed out ${where}`);
        if (graceMs === undefined || graceMs <= 0) {
          hub.unwatch(onAbort);
          reject(error);
          return;
        }
        timedOut = error;
        timer = startTimer(clock, graceMs, () => {
          hub.unwatch(onAbort);
          reject(options.onAbandon?.() ?? error);
        });
      });
    }
    promise.then(
      (value) => {
        hub.unwatch(onAbort);
        timer?.cancel();
        if (timedOut !== undefined) reject(timedOut);
        else resolve(value);
      },
      (error: unknown) => {
        hub.unwatch(onAbort);
        timer?.cancel();
        reject(timedOut ?? error);
      },
    );
  });
}

/**
 * A signal for one call (model attempt or tool) that aborts with the run and, on timeout, with
 * the timeout error. Created lazily: a call that never reads its signal never pays for an
 * AbortController.
 */
export class CallSignal {
  private controller: AbortController | undefined;
  private onRunAbort: (() => void) | undefined;
  private timeoutReason: TinyAgentsError | undefined;
  private readonly hub: AbortHub;

  constructor(hub: AbortHub) {
    this.hub = hub;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      if (this.timeoutReason !== undefined) controller.abort(this.timeoutReason);
      else {
        this.onRunAbort = () => controller.abort(this.hub.reason);
        this.hub.watch(this.onRunAbort);
      }
    }
    return this.controller.signal;
  }

  /** Abort this call only (its timeout passed). */
  timeout(reason: TinyAgentsError): TinyAgentsError {
    this.timeoutReason = reason;
    this.controller?.abort(reason);
    return reason;
  }

  dispose(): void {
    if (this.onRunAbort !== undefined) this.hub.unwatch(this.onRunAbort);
  }
}
