import { type Message, validateMessage, validationError } from "@tinyagents/inference";
import { SteeringHandle } from "../steering/steering-handle.js";
import { SteeringPolicy } from "../steering/steering-policy.js";
import {
  InMemoryRunQueueBackend,
  type LaneCounts,
  type QueuedMessage,
  type QueueLane,
  type RunQueueBackend,
} from "./run-queue-backend.js";

/** One run the queue starts. */
export interface QueuedRun {
  key: string;
  /** The run's input: one follow-up, the steer messages, or every collected message. */
  input: Message[];
  /** Why the run started. */
  lane: QueueLane;
  /** Pass it to the run (`ContextOptions.steering`): `steer` messages arrive through it. */
  steering: SteeringHandle;
}

/** Options of a {@link RunQueue}. */
export interface RunQueueOptions {
  /** Start one run and settle when it ends (for example `agent.run(input, { steering })`). */
  execute: (run: QueuedRun) => Promise<unknown>;
  /** Runs in flight across all keys (default 1). One key never has two runs at once. */
  concurrency?: number;
  backend?: RunQueueBackend;
  /** Receives a run's failure (the queue goes on with the next work). */
  onError?: (error: unknown, run: QueuedRun) => void;
  now?: () => number;
}

/** What is happening for one key. */
export interface RunQueueStatus {
  active: boolean;
  pending: LaneCounts;
}

/**
 * Schedules agent runs from queued messages, per key (conversation), with lanes (see
 * {@link QueueLane}) and a global concurrency limit.
 *
 * Contract: `push` never runs the agent inline; it queues (or, for `steer` while a run of the key
 * is active, injects the message through that run's steering handle — delivered at its next
 * checkpoint) and schedules. After a run ends, its key's pending work runs next: steer messages
 * first, then one follow-up, then all collected messages as one run. A steer message the run
 * ended before consuming is re-queued as a follow-up, never lost. `idle()` settles once nothing
 * runs or waits. The storage is a {@link RunQueueBackend}, so the queue can be distributed.
 */
export class RunQueue {
  readonly concurrency: number;
  private readonly options: RunQueueOptions;
  private readonly backend: RunQueueBackend;
  private readonly active = new Map<string, SteeringHandle>();
  private readonly now: () => number;
  private seq = 0;
  private pumping = false;
  private pumpAgain = false;
  private waiters: (() => void)[] = [];

  constructor(options: RunQueueOptions) {
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw validationError(`RunQueue concurrency must be an integer >= 1, got ${String(concurrency)}`, {
        field: "concurrency",
      });
    }
    this.concurrency = concurrency;
    this.options = options;
    this.backend = options.backend ?? new InMemoryRunQueueBackend();
    this.now = options.now ?? Date.now;
  }

  /** Runs in flight now. */
  get running(): number {
    return this.active.size;
  }

  /**
   * Queue `message` for `key` on `lane`. Returns `"steered"` when it went straight into the
   * active run of `key`, else `"queued"`.
   */
  async push(key: string, lane: QueueLane, message: Message): Promise<"steered" | "queued"> {
    if (typeof key !== "string" || key === "")
      throw validationError("RunQueue key must be a non-empty string", { field: "key" });
    if (lane !== "steer" && lane !== "followup" && lane !== "collect") {
      throw validationError(`unknown queue lane "${String(lane)}"; use steer, followup or collect`, {
        field: "lane",
      });
    }
    validateMessage(message, "message");
    const handle = this.active.get(key);
    if (lane === "steer" && handle !== undefined) {
      handle.injectMessage(message);
      return "steered";
    }
    await this.backend.push({ id: `q-${++this.seq}`, key, lane, message, enqueuedAt: this.now() });
    void this.pump();
    return "queued";
  }

  /** Whether `key` has a run in flight, and what waits for it. */
  async status(key: string): Promise<RunQueueStatus> {
    return { active: this.active.has(key), pending: await this.backend.counts(key) };
  }

  /** Drop pending messages of `key` (one lane or all). Returns how many. */
  clear(key: string, lane?: QueueLane): Promise<number> {
    return this.backend.clear(key, lane);
  }

  /** Settles when no run is in flight and nothing is pending. */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        for (const key of await this.backend.keys()) {
          if (this.active.size >= this.concurrency) break;
          if (this.active.has(key)) continue;
          // Reserve the key first: a steer pushed meanwhile goes into this run's handle.
          const steering = new SteeringHandle(new SteeringPolicy().allow("injectMessage"));
          this.active.set(key, steering);
          const next = await this.nextRun(key, steering);
          if (next === undefined) {
            this.active.delete(key);
            if (await this.requeue(key, steering)) this.pumpAgain = true;
          } else this.start(next);
        }
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
    if (this.active.size === 0 && (await this.backend.keys()).length === 0) {
      for (const resolve of this.waiters.splice(0)) resolve();
    }
  }

  private async nextRun(key: string, steering: SteeringHandle): Promise<QueuedRun | undefined> {
    for (const [lane, max] of [
      ["steer", undefined],
      ["followup", 1],
      ["collect", undefined],
    ] as const) {
      const items: QueuedMessage[] = await this.backend.take(key, lane, max);
      if (items.length > 0) return { key, lane, input: items.map((i) => i.message), steering };
    }
    return undefined;
  }

  private start(run: QueuedRun): void {
    void Promise.resolve()
      .then(() => this.options.execute(run))
      .catch((error: unknown) => this.options.onError?.(error, run))
      .then(async () => {
        this.active.delete(run.key);
        await this.requeue(run.key, run.steering);
        await this.pump();
      });
  }

  /** Queue the steer messages a handle still holds (its run ended first) as follow-ups. */
  private async requeue(key: string, steering: SteeringHandle): Promise<boolean> {
    let any = false;
    for (const command of steering.drain()) {
      if (command.kind !== "injectMessage") continue;
      any = true;
      const item = {
        id: `q-${++this.seq}`,
        key,
        lane: "followup" as const,
        message: command.message,
        enqueuedAt: this.now(),
      };
      await this.backend.push(item);
    }
    return any;
  }
}
