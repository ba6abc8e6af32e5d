/** A scheduled callback; `cancel()` stops it (a no-op once it fired or was cancelled). */
export interface Timer {
  cancel(): void;
}

/** The host's one-shot timer, injectable so the queue can be tested without real time. */
export interface HostTimers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  now(): number;
  /**
   * Optional (Node's `Timeout.unref`/`ref`): let an armed host timer stop keeping the process
   * alive, and make it do so again. With them the queue parks its host timer when the last
   * live timer is cancelled instead of clearing it, so one run's sequential tool calls (arm a
   * 120 s timeout, cancel it, arm the next...) cost no `setTimeout`/`clearTimeout` pair each.
   */
  unref?(handle: unknown): void;
  ref?(handle: unknown): void;
  /**
   * Optional (Node's `setImmediate`): call `callback` once, at the end of the current
   * event-loop iteration (the check phase: after the current task, its microtasks and the I/O
   * callbacks already due); returns a handle that `ref` / `unref` apply to. With it the queue
   * reads the time for new timers once per loop iteration, for the ones still live then: a timer
   * scheduled and cancelled within one iteration (a tool call's timeout, armed and cancelled as
   * the tool answers) costs no clock read and no heap operation. Such a timer's delay counts from
   * that read: it fires no earlier than asked, later by at most what was left of the iteration it
   * was scheduled in (including the synchronous work of the I/O callbacks run after it).
   * The pending callback is unref'd while no such timer is live (it keeps nothing alive then).
   */
  defer?(callback: () => void): unknown;
}

/** Longest delay `setTimeout` takes (2^31 - 1 ms); longer waits are re-armed in steps. */
const MAX_HOST_DELAY_MS = 2_147_483_647;

class Entry implements Timer {
  cancelled = false;
  constructor(
    /** When it is due (host time); NaN while it waits for its turn's clock read (see `defer`). */
    public dueAt: number,
    readonly delay: number,
    readonly seq: number,
    readonly callback: () => void,
    private readonly queue: TimerQueue,
  ) {}

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.queue.cancelled(this);
  }
}

/**
 * Many timers on ONE host timer: a binary min-heap of due times, with the host timer armed for
 * the earliest. Adding a timer that is not the earliest, and cancelling one, never touch the
 * host timer (cancelled entries are dropped lazily, and the heap is compacted when they
 * outnumber the live ones), so a thousand runs each arming and clearing a 120 s tool timeout
 * cost heap operations, not a `setTimeout`/`clearTimeout` pair each. When no live timer is left
 * the host timer is unref'd (parked: it may still fire, finds nothing due and is not re-armed)
 * where the host can, else cleared — either way an idle process can exit.
 *
 * Callbacks fire in due-time order (ties: first scheduled first); a callback that throws is
 * reported on the next macrotask (like an uncaught error in `setTimeout`) and does not stop the
 * others.
 */
export class TimerQueue {
  private readonly heap: Entry[] = [];
  private live = 0;
  private seq = 0;
  private hostHandle: unknown;
  /** When the armed host timer fires (Infinity: none armed). */
  private hostDueAt = Number.POSITIVE_INFINITY;
  /** The armed host timer is unref'd: no live timer needs it. */
  private parked = false;
  /** Timers scheduled this host turn, not yet given a due time (with `host.defer`). */
  private unstamped: Entry[] = [];
  /** How many of `unstamped` are live. */
  private unstampedLive = 0;
  /** The pending `host.defer` call that stamps `unstamped` (undefined: none). */
  private stampHandle: unknown;
  /** That call is unref'd (no unstamped timer is live). */
  private stampParked = false;

  constructor(private readonly host: HostTimers) {}

  /** Timers scheduled and neither fired nor cancelled. */
  get size(): number {
    return this.live;
  }

  /** Call `callback` once, `ms` from now (negative or NaN: 0; Infinity: never, until cancelled). */
  schedule(ms: number, callback: () => void): Timer {
    const delay = Number.isNaN(ms) || ms < 0 ? 0 : ms;
    if (delay === Number.POSITIVE_INFINITY) return new Entry(delay, delay, this.seq++, callback, this);
    const defer = this.host.defer;
    if (defer !== undefined && delay > 0) {
      // Due time read once per host turn, for the timers still live then (see `HostTimers.defer`).
      const entry = new Entry(Number.NaN, delay, this.seq++, callback, this);
      this.unstamped.push(entry);
      this.unstampedLive++;
      this.live++;
      if (this.stampHandle === undefined) this.stampHandle = defer(this.stamp);
      else if (this.stampParked) {
        // A live timer waits for the pending stamp: it must keep the process alive again.
        this.stampParked = false;
        this.host.ref?.(this.stampHandle);
      }
      return entry;
    }
    const entry = new Entry(this.host.now() + delay, delay, this.seq++, callback, this);
    this.push(entry);
    this.live++;
    this.armFor(entry.dueAt);
    return entry;
  }

  /** @internal An entry was cancelled. */
  cancelled(entry: Entry): void {
    if (entry.dueAt === Number.POSITIVE_INFINITY) return;
    this.live--;
    // Not stamped yet: drop it from this turn's list (nearly always its last entry).
    if (Number.isNaN(entry.dueAt)) {
      this.unstampedLive--;
      const unstamped = this.unstamped;
      while (unstamped.length > 0 && (unstamped[unstamped.length - 1] as Entry).cancelled) unstamped.pop();
      if (unstamped.length > 64 && unstamped.length > 2 * this.unstampedLive)
        this.unstamped = unstamped.filter((e) => !e.cancelled);
      // No unstamped timer is live: the pending stamp must not keep an idle process alive.
      if (this.unstampedLive === 0 && this.host.unref !== undefined && !this.stampParked) {
        this.stampParked = true;
        this.host.unref(this.stampHandle);
      }
    }
    if (this.live === 0) {
      // Nearly always one (cancelled) entry or none: `pop`, not `length = 0` (a runtime call in V8).
      const heap = this.heap;
      if (heap.length === 1) heap.pop();
      else if (heap.length > 1) heap.length = 0;
      // Already parked: nothing touched the host timer since (a timer set and cancelled this turn).
      if (this.parked) return;
      if (this.host.unref !== undefined && this.hostHandle !== undefined) {
        this.parked = true;
        this.host.unref(this.hostHandle);
      } else this.disarm();
    } else if (this.heap.length > 64 && this.heap.length > 2 * this.live) this.compact();
  }

  private readonly onHost = (): void => {
    this.hostHandle = undefined;
    this.parked = false;
    this.hostDueAt = Number.POSITIVE_INFINITY;
    const now = this.host.now();
    for (let head = this.heap[0]; head !== undefined; head = this.heap[0]) {
      if (head.cancelled) {
        this.pop();
        continue;
      }
      if (head.dueAt > now) break;
      this.pop();
      head.cancelled = true;
      this.live--;
      try {
        head.callback();
      } catch (error) {
        this.host.set(() => {
          throw error;
        }, 0);
      }
    }
    const next = this.peekLive();
    if (next !== undefined) this.arm(next.dueAt);
  };

  /** Give this turn's live timers their due time (one clock read) and put them on the heap. */
  private readonly stamp = (): void => {
    this.stampHandle = undefined;
    this.stampParked = false;
    const unstamped = this.unstamped;
    if (unstamped.length === 0) return;
    this.unstamped = [];
    this.unstampedLive = 0;
    const now = this.host.now();
    let earliest = Number.POSITIVE_INFINITY;
    for (const entry of unstamped) {
      if (entry.cancelled) continue;
      entry.dueAt = now + entry.delay;
      this.push(entry);
      if (entry.dueAt < earliest) earliest = entry.dueAt;
    }
    if (earliest !== Number.POSITIVE_INFINITY) this.armFor(earliest);
  };

  /** A live timer due at `dueAt` joined the heap: arm the host timer for it, or keep it alive. */
  private armFor(dueAt: number): void {
    if (dueAt < this.hostDueAt) this.arm(dueAt);
    else if (this.parked) {
      // The parked host timer fires before this entry is due (then re-arms): it must keep the
      // process alive again.
      this.parked = false;
      this.host.ref?.(this.hostHandle);
    }
  }

  private arm(dueAt: number): void {
    this.disarm();
    this.hostDueAt = dueAt;
    const ms = Math.min(Math.max(0, Math.ceil(dueAt - this.host.now())), MAX_HOST_DELAY_MS);
    this.hostHandle = this.host.set(this.onHost, ms);
  }

  private disarm(): void {
    if (this.hostHandle !== undefined) this.host.clear(this.hostHandle);
    this.hostHandle = undefined;
    this.parked = false;
    this.hostDueAt = Number.POSITIVE_INFINITY;
  }

  private peekLive(): Entry | undefined {
    while (this.heap.length > 0 && (this.heap[0] as Entry).cancelled) this.pop();
    return this.heap[0];
  }

  private compact(): void {
    const kept = this.heap.filter((e) => !e.cancelled);
    this.heap.length = 0;
    for (const entry of kept) this.push(entry);
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as Entry;
      if (!before(entry, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let i = 0;
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(heap[r] as Entry, heap[l] as Entry) ? r : l;
      if (!before(heap[c] as Entry, last)) break;
      heap[i] = heap[c] as Entry;
      i = c;
    }
    heap[i] = last;
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
}
