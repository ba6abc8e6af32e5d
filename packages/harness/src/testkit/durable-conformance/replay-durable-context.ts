import {
  type Clock,
  type ErrorSummary,
  type JsonValue,
  startTimer,
  systemClock,
  TinyAgentsError,
  toTinyAgentsError,
} from "@tinyagents/inference";
import type {
  AwaitSignalOptions,
  DurableChildOptions,
  DurableContext,
  DurableStepOptions,
  DurableValue,
} from "../../contracts/durable-context.js";

/** One recorded step: its JSON value (`null` for `undefined`), or the failure it ended with. */
export type JournalEntry = { value: JsonValue } | { error: ErrorSummary };

/**
 * What the replay double has journaled for one run: completed steps and children by name (in
 * completion order), the values `now()` and `randomId()` returned (in call order), and the
 * signals delivered (`null`: the wait timed out). Plain JSON: clone it to "restart the worker".
 */
export interface DurableJournal {
  steps: Record<string, JournalEntry>;
  order: string[];
  now: number[];
  ids: string[];
  signals: Record<string, JsonValue>;
}

/** Where the simulated worker dies (see {@link ReplayDurableContext}). */
export type CrashPoint =
  /** Before step (or child) `name` runs: its function never starts. */
  | { before: string }
  /** During step `name`: its function runs to the end (its effects happen), then the worker dies before the journal write. */
  | { during: string }
  /** When the run starts waiting for signal `name`. */
  | { awaiting: string };

/** Thrown by every call of a {@link ReplayDurableContext} from the moment its simulated worker died. */
export class WorkerCrash extends Error {
  constructor(where: string) {
    super(`simulated worker crash ${where}`);
    this.name = "WorkerCrash";
  }
}

/** Options of {@link ReplayDurableContext}. */
export interface ReplayDurableOptions {
  /** The journal left by an earlier worker (cloned; the default is an empty one: a fresh run). */
  journal?: DurableJournal;
  /** Kill the simulated worker at this point. */
  crash?: CrashPoint;
  /** Clock of fresh `now()` values and of signal timeouts (default: the system clock). */
  clock?: Clock;
}

/** An empty journal. */
export function emptyJournal(): DurableJournal {
  return { steps: {}, order: [], now: [], ids: [], signals: {} };
}

/**
 * A test double of a journaling engine (Restate, DBOS) for the durable seam, in one process:
 * every `step` and `child` value is recorded into {@link journal} as JSON; built from a journal,
 * it returns recorded values (and re-throws recorded failures) without calling the function, and
 * executes only the steps that are missing — exactly what an engine does when it re-drives a
 * crashed run on another worker. `now()` and `randomId()` replay their recorded sequence, then
 * record fresh values; `awaitSignal` returns a delivered signal, else waits for {@link signal}.
 *
 * `crash` simulates the worker dying: from that point every call throws {@link WorkerCrash} and
 * nothing more is recorded (the run in this "worker" fails; its journal is what survives). Start
 * a fresh harness with `new ReplayDurableContext({ journal: crashed.journal })` to recover.
 * `executed` lists the steps this instance actually ran (not replayed).
 */
export class ReplayDurableContext implements DurableContext {
  readonly engine = "replay";
  readonly journal: DurableJournal;
  readonly executed: string[] = [];
  private readonly crashPoint: CrashPoint | undefined;
  private readonly clock: Clock;
  private crashed = false;
  private nowIndex = 0;
  private idIndex = 0;
  private idCounter = 0;
  private readonly waiters = new Map<string, (value: JsonValue) => void>();

  constructor(options: ReplayDurableOptions = {}) {
    this.journal = options.journal === undefined ? emptyJournal() : structuredClone(options.journal);
    this.crashPoint = options.crash;
    this.clock = options.clock ?? systemClock;
  }

  /** Whether the simulated worker died. */
  get dead(): boolean {
    return this.crashed;
  }

  step<T extends DurableValue>(name: string, fn: () => Promise<T>, _options: DurableStepOptions): Promise<T> {
    return this.record(name, fn);
  }

  child<T extends DurableValue>(
    name: string,
    fn: () => Promise<T>,
    _options?: DurableChildOptions,
  ): Promise<T> {
    return this.record(name, fn);
  }

  now(): number {
    this.alive("reading the clock");
    const recorded = this.journal.now[this.nowIndex++];
    if (recorded !== undefined) return recorded;
    const value = this.clock.now();
    this.journal.now.push(value);
    return value;
  }

  randomId(prefix = "id"): string {
    this.alive("generating an id");
    const recorded = this.journal.ids[this.idIndex++];
    if (recorded !== undefined) return recorded;
    const value = `${prefix}-replay-${this.journal.ids.length + 1}-${++this.idCounter}`;
    this.journal.ids.push(value);
    return value;
  }

  awaitSignal<T extends DurableValue>(
    name: string,
    options: AwaitSignalOptions = {},
  ): Promise<T | undefined> {
    try {
      this.alive(`waiting for signal "${name}"`);
      if (
        this.crashPoint !== undefined &&
        "awaiting" in this.crashPoint &&
        this.crashPoint.awaiting === name
      ) {
        this.die(`while waiting for signal "${name}"`);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    if (name in this.journal.signals)
      return Promise.resolve(fromJson(this.journal.signals[name]) as T | undefined);
    return new Promise<T | undefined>((resolve) => {
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : startTimer(this.clock, options.timeoutMs, () => this.deliver(name, null));
      this.waiters.set(name, (value) => {
        timer?.cancel();
        resolve(fromJson(value) as T | undefined);
      });
    });
  }

  /**
   * Deliver signal `name` (durably: it goes into the journal, so a replay sees it too). Completes
   * a pending wait, or the next one. A second signal of the same name is ignored (exactly once).
   */
  signal(name: string, value: DurableValue): void {
    this.deliver(name, toJson(value));
  }

  private deliver(name: string, value: JsonValue): void {
    if (name in this.journal.signals) return;
    this.journal.signals[name] = value;
    const waiter = this.waiters.get(name);
    this.waiters.delete(name);
    waiter?.(value);
  }

  private async record<T extends DurableValue>(name: string, fn: () => Promise<T>): Promise<T> {
    this.alive(`before step "${name}"`);
    const entry = this.journal.steps[name];
    if (entry !== undefined) {
      if ("error" in entry) throw replayedError(entry.error);
      return fromJson(entry.value) as T;
    }
    const crash = this.crashPoint;
    if (crash !== undefined && "before" in crash && crash.before === name) this.die(`before step "${name}"`);
    this.executed.push(name);
    let value: T;
    try {
      value = await fn();
    } catch (error) {
      // A crash inside a child's steps is the worker's death, not this step's failure.
      if (this.crashed || error instanceof WorkerCrash) throw error;
      this.alive(`after step "${name}" failed`);
      this.commit(name, { error: toTinyAgentsError(error).toJSON() });
      throw error;
    }
    this.alive(`after step "${name}"`);
    if (crash !== undefined && "during" in crash && crash.during === name) this.die(`during step "${name}"`);
    this.commit(name, { value: toJson(value) });
    return fromJson(toJson(value)) as T;
  }

  private commit(name: string, entry: JournalEntry): void {
    if (name in this.journal.steps) {
      throw new TinyAgentsError(
        "conflict",
        `step "${name}" was recorded twice: step names must be unique in a run`,
        {
          details: { step: name },
        },
      );
    }
    this.journal.steps[name] = entry;
    this.journal.order.push(name);
  }

  private alive(doing: string): void {
    if (this.crashed) throw new WorkerCrash(`(already dead) ${doing}`);
  }

  private die(where: string): never {
    this.crashed = true;
    for (const resolve of this.waiters.values()) resolve(null);
    this.waiters.clear();
    throw new WorkerCrash(where);
  }
}

/**
 * The `<runId>:<callId>` keys of the model and tool steps `journal` completed for run `runId`
 * (`model:`, `tool:` and `result:` steps): what `checkLedger`'s `completed` option takes.
 */
export function journaledCallKeys(journal: DurableJournal, runId: string): string[] {
  const keys: string[] = [];
  for (const name of journal.order) {
    const entry = journal.steps[name];
    if (entry === undefined || "error" in entry) continue;
    const match = /^(model|tool|result):(.+)$/.exec(name);
    if (match !== null) keys.push(`${runId}:${match[2]}`);
  }
  return keys;
}

function toJson(value: DurableValue): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

function fromJson(value: JsonValue | undefined): DurableValue {
  return value === undefined || value === null ? undefined : structuredClone(value);
}

function replayedError(summary: ErrorSummary): TinyAgentsError {
  return new TinyAgentsError(
    summary.code,
    summary.message,
    summary.details === undefined ? {} : { details: summary.details },
  );
}
