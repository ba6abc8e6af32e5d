import { type Clock, startTimer, systemClock, type Timer, TinyAgentsError } from "@tinyagents/inference";
import type {
  AwaitSignalOptions,
  DurableContext,
  DurableStepOptions,
  DurableValue,
} from "../contracts/durable-context.js";
import type { ToolResult } from "../contracts/tool-result.js";
import { createRandomIds, type IdGenerator } from "../ids/id-generator.js";
import type { RunCheckpoints, ToolIntent } from "./checkpoint-contract.js";

/** Options of {@link InProcessDurableContext}: the run's clock and ids, and its checkpoint store. */
export interface InProcessDurableOptions {
  /** `now()` reads it (default: the system clock); timeouts of `awaitSignal` run on it. */
  clock?: Clock;
  /** `randomId(prefix)` is `ids.next(prefix)` (default: fresh random ids). */
  ids?: IdGenerator;
  /**
   * The run's checkpoint store (`durability.checkpoints`) and run id: with both, the `intent` and
   * `result` steps of a `sideEffects: "once"` tool are kept there as the call's `ToolIntent`, so
   * a run recovered in another process finds them (issue 17's at-most-once, unchanged).
   */
  checkpoints?: RunCheckpoints;
  runId?: string;
}

interface Waiter {
  resolve(value: DurableValue): void;
  timer: Timer | undefined;
}

const NOTHING: unique symbol = Symbol("nothing");

/**
 * The default {@link DurableContext}: the run executes in this process and nothing is journaled.
 * `step` and `child` call `fn` directly (the loop skips them altogether on its hot path: calling
 * through would change nothing), `now()` is the run's clock, `randomId(prefix)` the run's id
 * generator, and `awaitSignal` an in-memory wait that {@link signal} completes.
 *
 * One exception keeps issue 17's contract: with a checkpoint store, the `intent:<callId>` and
 * `result:<callId>` steps of a `"once"` tool are recorded as the call's `ToolIntent` there, and a
 * recovered run gets the recorded value back instead of running the step again — the same replay
 * rule an engine applies to every step.
 */
export class InProcessDurableContext implements DurableContext {
  readonly engine = "in-process";
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly checkpoints: RunCheckpoints | undefined;
  private readonly runId: string | undefined;
  private readonly waiters = new Map<string, Waiter>();
  private readonly delivered = new Map<string, DurableValue>();

  constructor(options: InProcessDurableOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? createRandomIds();
    this.checkpoints = options.checkpoints;
    this.runId = options.runId;
  }

  step<T extends DurableValue>(name: string, fn: () => Promise<T>, options: DurableStepOptions): Promise<T> {
    const { checkpoints, runId } = this;
    if (checkpoints === undefined || runId === undefined) return fn();
    if (options.kind === "intent") return this.intentStep(checkpoints, runId, stepSuffix(name), fn);
    if (options.kind === "result") return this.resultStep(checkpoints, runId, stepSuffix(name), fn);
    return fn();
  }

  now(): number {
    return this.clock.now();
  }

  randomId(prefix = "id"): string {
    return this.ids.next(prefix);
  }

  awaitSignal<T extends DurableValue>(
    name: string,
    options: AwaitSignalOptions = {},
  ): Promise<T | undefined> {
    const early = this.delivered.get(name) ?? NOTHING;
    if (early !== NOTHING) {
      this.delivered.delete(name);
      return Promise.resolve(early as T);
    }
    if (this.waiters.has(name)) {
      return Promise.reject(
        new TinyAgentsError(
          "conflict",
          `a wait for signal "${name}" is already pending; each signal has one waiter`,
          {
            details: { signal: name },
          },
        ),
      );
    }
    return new Promise<T | undefined>((resolve) => {
      const waiter: Waiter = { resolve: (value) => resolve(value as T | undefined), timer: undefined };
      if (options.timeoutMs !== undefined) {
        waiter.timer = startTimer(this.clock, options.timeoutMs, () => {
          if (this.waiters.get(name) !== waiter) return;
          this.waiters.delete(name);
          resolve(undefined);
        });
      }
      this.waiters.set(name, waiter);
    });
  }

  /**
   * Complete the wait on `name` with `value` (exactly once): a pending `awaitSignal` resolves; a
   * signal sent before anyone waits is kept for the next wait. Returns whether a wait was pending.
   */
  signal(name: string, value: DurableValue): boolean {
    const waiter = this.waiters.get(name);
    if (waiter === undefined) {
      this.delivered.set(name, value);
      return false;
    }
    this.waiters.delete(name);
    waiter.timer?.cancel();
    waiter.resolve(value);
    return true;
  }

  child<T extends DurableValue>(_name: string, fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  /** The intent of a "once" call: the recorded one when it exists (`fn` is not run), else `fn`'s, recorded. */
  private async intentStep<T extends DurableValue>(
    store: RunCheckpoints,
    runId: string,
    callId: string,
    fn: () => Promise<T>,
  ): Promise<T> {
    const earlier = await store.intent(runId, callId);
    if (earlier !== undefined) return intentValue(earlier) as unknown as T;
    const value = await fn();
    await store.recordIntent(toIntent(runId, callId, value));
    return value;
  }

  /** The result of a "once" call: the recorded one when it exists, else `fn`'s, recorded on the intent. */
  private async resultStep<T extends DurableValue>(
    store: RunCheckpoints,
    runId: string,
    callId: string,
    fn: () => Promise<T>,
  ): Promise<T> {
    const earlier = await store.intent(runId, callId);
    if (earlier?.result !== undefined) return earlier.result as unknown as T;
    const result = await fn();
    const intent = earlier ?? toIntent(runId, callId, undefined);
    await store.recordIntent({ ...intent, result: result as unknown as ToolResult });
    return result;
  }
}

/** `intent:<callId>` -> `<callId>` (the loop's step names; see docs/scale-out/seam.md). */
function stepSuffix(name: string): string {
  const colon = name.indexOf(":");
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The value an intent step recorded: the intent without its result. */
function intentValue(intent: ToolIntent): DurableValue {
  return {
    runId: intent.runId,
    callId: intent.callId,
    toolName: intent.toolName,
    startedAt: intent.startedAt,
  };
}

function toIntent(runId: string, callId: string, value: DurableValue): ToolIntent {
  const v = (typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}) as {
    toolName?: unknown;
    startedAt?: unknown;
  };
  return {
    runId,
    callId,
    toolName: typeof v.toolName === "string" ? v.toolName : "",
    startedAt: typeof v.startedAt === "number" ? v.startedAt : 0,
  };
}
