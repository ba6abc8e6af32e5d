import { TinyAgentsError } from "@tinyagents/inference";
import type { AbortHub } from "../context/abort-hub.js";
import { cancelled } from "../errors/factories.js";

/** The error a run sees when its signal aborts: the signal's reason if it is ours, else `cancelled`. */
export function abortError(signal: AbortSignal, where: string): TinyAgentsError {
  const reason: unknown = signal.reason;
  return TinyAgentsError.isInstance(reason) ? reason : cancelled(where, reason);
}

/** Throw when the signal has aborted. */
export function throwIfAborted(signal: AbortSignal, where: string): void {
  if (signal.aborted) throw abortError(signal, where);
}

/** Options of {@link race}. */
export interface RaceOptions {
  hub: AbortHub;
  /** Describes the moment, for the cancellation message. */
  where: string;
  /** Real-time budget; when it passes, `onTimeout()` is called and its error rejects the race. */
  timeoutMs?: number;
  onTimeout?: () => TinyAgentsError;
}

/**
 * Settle with `promise`, or reject as soon as the run aborts or the timeout passes. Cleans up
 * its watcher and timer either way, so nothing outlives the race.
 */
export function race<T>(promise: Promise<T>, options: RaceOptions): Promise<T> {
  const { hub, where } = options;
  if (hub.signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortError(hub.signal, where));
  }
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unwatch = hub.watch(() => {
      if (timer !== undefined) clearTimeout(timer);
      reject(abortError(hub.signal, where));
    });
    if (options.timeoutMs !== undefined) {
      timer = setTimeout(
        () => {
          unwatch();
          reject(options.onTimeout?.() ?? new TinyAgentsError("timeout", `timed out ${where}`));
        },
        Math.max(0, options.timeoutMs),
      );
    }
    promise.then(
      (value) => {
        unwatch();
        if (timer !== undefined) clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        unwatch();
        if (timer !== undefined) clearTimeout(timer);
        reject(error);
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
  private unwatch: (() => void) | undefined;
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
      else this.unwatch = this.hub.watch(() => controller.abort(this.hub.signal.reason));
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
    this.unwatch?.();
  }
}
