import type { Message } from "@tinyagents/inference";

/**
 * How a queued message reaches an agent:
 * - `steer`: into the RUNNING run of its key, at the next checkpoint (via the run's steering
 *   handle); when nothing runs, it starts a run (ahead of follow-ups);
 * - `followup`: a run of its own after the current one ends, one message per run, in order;
 * - `collect`: everything collected while busy, coalesced into ONE run after the current one.
 */
export type QueueLane = "steer" | "followup" | "collect";

/** Every lane, in scheduling priority order. */
export const QUEUE_LANES: readonly QueueLane[] = ["steer", "followup", "collect"];

/** One queued message. Plain JSON data (so a distributed backend can store it as is). */
export interface QueuedMessage {
  id: string;
  /** The conversation / session the message belongs to: at most one run per key at a time. */
  key: string;
  lane: QueueLane;
  message: Message;
  enqueuedAt: number;
}

/** Pending messages per lane. */
export type LaneCounts = Record<QueueLane, number>;

/**
 * Storage of a {@link RunQueue}: the seam for a distributed implementation (Redis lists, SQL
 * rows, a message broker). Every method is async; `take` must be atomic (two schedulers never
 * take the same message) and keep FIFO order within a key and lane.
 */
export interface RunQueueBackend {
  push(item: QueuedMessage): Promise<void>;
  /** Remove and return up to `max` (default: all) oldest messages of `key` in `lane`. */
  take(key: string, lane: QueueLane, max?: number): Promise<QueuedMessage[]>;
  counts(key: string): Promise<LaneCounts>;
  /** Keys that have pending messages, oldest first. */
  keys(): Promise<string[]>;
  /** Drop pending messages of `key` (one lane, or all); returns how many. */
  clear(key: string, lane?: QueueLane): Promise<number>;
}

/** A {@link RunQueueBackend} in process memory. */
export class InMemoryRunQueueBackend implements RunQueueBackend {
  private readonly byKey = new Map<string, Record<QueueLane, QueuedMessage[]>>();

  async push(item: QueuedMessage): Promise<void> {
    let lanes = this.byKey.get(item.key);
    if (lanes === undefined) {
      lanes = { steer: [], followup: [], collect: [] };
      this.byKey.set(item.key, lanes);
    }
    lanes[item.lane].push(structuredClone(item));
  }

  async take(key: string, lane: QueueLane, max?: number): Promise<QueuedMessage[]> {
    const lanes = this.byKey.get(key);
    if (lanes === undefined) return [];
    const taken = lanes[lane].splice(0, max ?? lanes[lane].length);
    if (QUEUE_LANES.every((l) => lanes[l].length === 0)) this.byKey.delete(key);
    return taken;
  }

  async counts(key: string): Promise<LaneCounts> {
    const lanes = this.byKey.get(key);
    return {
      steer: lanes?.steer.length ?? 0,
      followup: lanes?.followup.length ?? 0,
      collect: lanes?.collect.length ?? 0,
    };
  }

  async keys(): Promise<string[]> {
    return [...this.byKey.keys()];
  }

  async clear(key: string, lane?: QueueLane): Promise<number> {
    const lanes = this.byKey.get(key);
    if (lanes === undefined) return 0;
    let removed = 0;
    for (const l of lane === undefined ? QUEUE_LANES : [lane]) removed += lanes[l].splice(0).length;
    if (QUEUE_LANES.every((l) => lanes[l].length === 0)) this.byKey.delete(key);
    return removed;
  }
}
