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
}

/** Longest delay `setTimeout` takes (2^31 - 1 ms); longer waits are re-armed in steps. */
const MAX_HOST_DELAY_MS = 2_147_483_647;

class Entry implements Timer {
  cancelled = false;
  constructor(
    readonly dueAt: number,
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

  constructor(private readonly host: HostTimers) {}

  /** Timers scheduled and neither fired nor cancelled. */
  get size(): number {
    return this.live;
  }

  /** Call `callback` once, `ms` from now (negative or NaN: 0; Infinity: never, until cancelled). */
  schedule(ms: number, callback: () => void): Timer {
    const delay = Number.isNaN(ms) || ms < 0 ? 0 : ms;
    const entry = new Entry(this.host.now() + delay, this.seq++, callback, this);
    if (delay === Number.POSITIVE_INFINITY) return entry;
    this.push(entry);
    this.live++;
    if (entry.dueAt < this.hostDueAt) this.arm(entry.dueAt);
    else if (this.parked) {
      // The parked host timer fires before this entry is due (then re-arms): it must keep the
      // process alive again.
      this.parked = false;
      this.host.ref?.(this.hostHandle);
    }
    return entry;
  }

  /** @internal An entry was cancelled. */
  cancelled(entry: Entry): void {
    if (entry.dueAt === Number.POSITIVE_INFINITY) return;
    this.live--;
    if (this.live === 0) {
      // Nearly always one (cancelled) entry: `pop`, not `length = 0` (a runtime call in V8).
      const heap = this.heap;
      if (heap.length === 1) heap.pop();
      else heap.length = 0;
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
