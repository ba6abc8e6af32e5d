import { type Clock, startInterval, type Timer } from "@tinyagents/inference";
import type { RunContext } from "../contracts/run-context.js";
import type { ResolvedDurability } from "../durability/run-durability.js";

interface Beating {
  ctx: RunContext<unknown>;
  lease: ResolvedDurability;
}

/**
 * ONE timer per clock for every live run on it (not one per run): every `tickMs` (the shortest
 * `heartbeatMs` registered, by default a third of the lease) each run gets a `run.heartbeat`
 * event, which renews its lease in the status store, and a checkpointed run renews the lease of
 * its durable record (a renewal that finds the run taken by another owner cancels the run) — also while one long model or tool call is in flight and the run emits only
 * deltas (which are not saved). Safe boundaries renew it too: every saved status change carries
 * a fresh lease. The timer stops when no run is registered, so an idle process holds no timer.
 */
class HeartbeatTimer {
  private readonly clock: Clock;
  private readonly runs = new Set<Beating>();
  private timer: Timer | undefined;
  private tickMs = Number.POSITIVE_INFINITY;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  register(entry: Beating): () => void {
    this.runs.add(entry);
    const tick = entry.lease.heartbeatMs;
    if (tick < this.tickMs) {
      this.tickMs = tick;
      this.timer?.cancel();
      this.timer = undefined;
    }
    this.timer ??= startInterval(this.clock, this.tickMs, () => this.beat());
    return () => {
      this.runs.delete(entry);
      if (this.runs.size === 0) {
        this.timer?.cancel();
        this.timer = undefined;
        this.tickMs = Number.POSITIVE_INFINITY;
      }
    };
  }

  /** Registered runs (diagnostics and tests). */
  get size(): number {
    return this.runs.size;
  }

  private beat(): void {
    for (const entry of this.runs) emitHeartbeat(entry.ctx, entry.lease);
  }
}

const timers = new WeakMap<Clock, HeartbeatTimer>();

/** The shared heartbeat timer of `clock` (one per clock). */
export function heartbeatTimerOf(clock: Clock): { readonly size: number } {
  let timer = timers.get(clock);
  if (timer === undefined) {
    timer = new HeartbeatTimer(clock);
    timers.set(clock, timer);
  }
  return timer;
}

/** `run.heartbeat`: the run is alive, owned by `ownerId`, until `leaseUntil`. */
export function emitHeartbeat(ctx: RunContext<unknown>, lease: ResolvedDurability, renew = true): void {
  const now = ctx.clock.now();
  const held = lease.lease;
  if (held !== undefined && renew) {
    if (held.lost !== undefined) return;
    held.renew(now).catch((error: unknown) => {
      // Another process took the run (or the store failed): stop it before it does more.
      if (!ctx.aborted) ctx.cancel(error);
    });
  }
  ctx.emit(
    held === undefined
      ? {
          type: "run.heartbeat",
          ownerId: lease.ownerId,
          leaseMs: lease.leaseMs,
          leaseUntil: now + lease.leaseMs,
        }
      : {
          type: "run.heartbeat",
          ownerId: lease.ownerId,
          leaseMs: lease.leaseMs,
          leaseUntil: now + lease.leaseMs,
          epoch: held.epoch,
        },
  );
}

/**
 * Start a run's liveness: a first heartbeat (it names the owner and the lease), then the shared
 * timer covers quiet stretches. Returns the function that stops it (called when the run ends).
 */
export function startLiveness(ctx: RunContext<unknown>, lease: ResolvedDurability): () => void {
  emitHeartbeat(ctx, lease, false); // the take just set the lease
  const timer = heartbeatTimerOf(ctx.clock) as HeartbeatTimer;
  return timer.register({ ctx, lease });
}
