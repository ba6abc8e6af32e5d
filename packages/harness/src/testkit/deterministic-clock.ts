import type { Clock, Timer } from "@tinyagents/inference";

/** Default start time of a {@link DeterministicClock}: 2023-11-14T22:13:20Z, so timestamps look real. */
export const DEFAULT_CLOCK_START = 1_700_000_000_000;

/** Options of a {@link DeterministicClock}. */
export interface DeterministicClockOptions {
  /** Virtual epoch milliseconds at construction (default {@link DEFAULT_CLOCK_START}). */
  start?: number;
  /**
   * When true (default) pending sleeps fire by themselves, earliest wake time first, as soon as
   * the program is idle. When false they fire only through {@link DeterministicClock.advance}.
   */
  autoAdvance?: boolean;
}

interface PendingSleep {
  wakeAt: number;
  /** Timers (`setTimer`) are passive: they fire when time passes, they never move it. */
  timer: boolean;
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

// Captured at load so test-framework fake timers installed later cannot stall the clock.
const nextTurn: (fn: () => void) => void =
  typeof globalThis.setImmediate === "function"
    ? globalThis.setImmediate.bind(globalThis)
    : (fn) => {
        setTimeout(fn, 0);
      };

/**
 * A virtual-time {@link Clock}: `now()` only moves when something sleeps or the test calls
 * `advance`, and `sleep` never waits on a real timer.
 *
 * Semantics (a tiny discrete-event simulation):
 * - `sleep(ms)` schedules a wake-up at `now() + ms` and logs `ms` in {@link sleeps}.
 * - With `autoAdvance` (default) pending sleeps fire one at a time on the next event-loop turn
 *   (zero real wait), earliest wake time first (ties: first requested first); firing moves
 *   `now()` forward to the wake time. So a lone `sleep(500)` resolves at once with time 500 ms
 *   later, two concurrent `sleep(100)` both end 100 ms later (not 200), and a race between a
 *   500 ms timeout and a 10 ms task is won by the task, exactly as with real time.
 * - A sleep whose signal aborts rejects with `signal.reason` (like `systemClock`) and never
 *   fires; an already-aborted signal rejects immediately.
 * - `sleep(Infinity)` never wakes: it means "forever, unless aborted". Negative or NaN durations
 *   count as 0.
 * - `setTimer(ms, fn)` (deadlines, timeouts, heartbeats) is passive: time never moves FOR a timer,
 *   only for work that sleeps. While at least one sleep is pending (`sleep(Infinity)` included:
 *   work waiting forever), the next due entry fires, timer or sleep, earliest first; so a 20 ms
 *   deadline cuts a model call that sleeps 50 ms at exactly 20 ms. With no sleep pending, timers
 *   wait for {@link advance} (a tool doing real I/O is not timed out at virtual speed).
 */
export class DeterministicClock implements Clock {
  /** Every duration passed to `sleep`, in call order (including aborted ones). */
  readonly sleeps: number[] = [];
  private current: number;
  private readonly autoAdvance: boolean;
  private readonly pending: PendingSleep[] = [];
  private turnScheduled = false;

  constructor(options: DeterministicClockOptions = {}) {
    this.current = options.start ?? DEFAULT_CLOCK_START;
    this.autoAdvance = options.autoAdvance ?? true;
  }

  /** The virtual time, in epoch milliseconds. */
  now(): number {
    return this.current;
  }

  /** Sleeps that have neither fired nor been aborted. */
  get pendingSleeps(): number {
    let n = 0;
    for (const entry of this.pending) if (!entry.timer) n++;
    return n;
  }

  /** Timers (`setTimer`) that have neither fired nor been cancelled. */
  get pendingTimers(): number {
    let n = 0;
    for (const entry of this.pending) if (entry.timer) n++;
    return n;
  }

  /** Call `callback` once `ms` of virtual time have passed, unless cancelled first (see the class notes). */
  setTimer(ms: number, callback: () => void): Timer {
    const duration = Number.isNaN(ms) || ms < 0 ? 0 : ms;
    const entry: PendingSleep = {
      wakeAt: this.current + duration,
      timer: true,
      resolve: callback,
      reject: () => {},
      signal: undefined,
      onAbort: undefined,
    };
    this.insert(entry);
    this.scheduleTurn();
    return { cancel: () => this.remove(entry) };
  }

  /** Wait `ms` of virtual time; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const duration = Number.isNaN(ms) || ms < 0 ? 0 : ms;
    return new Promise<void>((resolve, reject) => {
      const entry: PendingSleep = {
        wakeAt: this.current + duration,
        timer: false,
        resolve,
        reject,
        signal,
        onAbort: undefined,
      };
      if (signal !== undefined) {
        entry.onAbort = () => {
          this.remove(entry);
          reject(signal.reason);
        };
        signal.addEventListener("abort", entry.onAbort, { once: true });
      }
      this.insert(entry);
      this.scheduleTurn();
    });
  }

  /**
   * Move virtual time forward by `ms` and fire, in wake-time order, every pending sleep that is
   * now due. Their continuations run on the following microtasks (`await` a tick to observe them).
   */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`DeterministicClock.advance: ms must be a finite number >= 0, got ${String(ms)}`);
    }
    this.current += ms;
    for (
      let head = this.pending[0];
      head !== undefined && head.wakeAt <= this.current;
      head = this.pending[0]
    ) {
      this.fire(head);
    }
  }

  /** The entry auto-advance fires next: the earliest finite one, while some sleep is pending. */
  private due(): PendingSleep | undefined {
    const head = this.pending[0];
    if (head === undefined || !Number.isFinite(head.wakeAt)) return undefined;
    for (const entry of this.pending) if (!entry.timer) return head;
    return undefined;
  }

  private insert(entry: PendingSleep): void {
    let i = this.pending.length;
    while (i > 0 && (this.pending[i - 1] as PendingSleep).wakeAt > entry.wakeAt) i--;
    this.pending.splice(i, 0, entry);
  }

  private remove(entry: PendingSleep): void {
    const i = this.pending.indexOf(entry);
    if (i >= 0) this.pending.splice(i, 1);
  }

  private fire(entry: PendingSleep): void {
    this.remove(entry);
    if (entry.onAbort !== undefined) entry.signal?.removeEventListener("abort", entry.onAbort);
    if (entry.wakeAt > this.current) this.current = entry.wakeAt;
    if (!entry.timer) {
      entry.resolve();
      return;
    }
    try {
      entry.resolve();
    } catch (error) {
      // Like an uncaught error in a real timer: reported, and the other entries still fire.
      nextTurn(() => {
        throw error;
      });
    }
  }

  private scheduleTurn(): void {
    if (!this.autoAdvance || this.turnScheduled || this.due() === undefined) return;
    this.turnScheduled = true;
    nextTurn(() => {
      this.turnScheduled = false;
      const next = this.due();
      if (next !== undefined) this.fire(next);
      this.scheduleTurn();
    });
  }
}
