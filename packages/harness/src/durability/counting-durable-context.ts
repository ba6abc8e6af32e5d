import type {
  ApprovalWait,
  AwaitSignalOptions,
  DurableChildOptions,
  DurableContext,
  DurableStepOptions,
  DurableValue,
} from "../contracts/durable-context.js";

/**
 * A run's view of an engine's `DurableContext` that counts the journaled operations the run
 * starts through it (steps, waits, approvals, children): the loop compares the count after a
 * model step with the count when the tool phase starts, to know that nothing durable happened
 * in between (see `DurableContext.modelStepIsIntent`). Everything else passes straight through.
 */
export class CountingDurableContext implements DurableContext {
  readonly engine: string;
  readonly resumeTimeoutMs?: number;
  readonly modelStepIsIntent?: boolean;
  readonly openApproval?: (wait: ApprovalWait) => Promise<void>;
  /** Journaled operations started through this view so far. */
  operations = 0;

  constructor(readonly inner: DurableContext) {
    this.engine = inner.engine;
    if (inner.resumeTimeoutMs !== undefined) this.resumeTimeoutMs = inner.resumeTimeoutMs;
    if (inner.modelStepIsIntent !== undefined) this.modelStepIsIntent = inner.modelStepIsIntent;
    const open = inner.openApproval;
    if (open !== undefined) {
      this.openApproval = (wait) => {
        this.operations++;
        return open.call(inner, wait);
      };
    }
  }

  step<T extends DurableValue>(name: string, fn: () => Promise<T>, options: DurableStepOptions): Promise<T> {
    this.operations++;
    return this.inner.step(name, fn, options);
  }

  now(): number {
    return this.inner.now();
  }

  randomId(prefix?: string): string {
    return this.inner.randomId(prefix);
  }

  awaitSignal<T extends DurableValue>(name: string, options?: AwaitSignalOptions): Promise<T | undefined> {
    this.operations++;
    return this.inner.awaitSignal(name, options);
  }

  child<T extends DurableValue>(
    name: string,
    fn: () => Promise<T>,
    options?: DurableChildOptions,
  ): Promise<T> {
    this.operations++;
    return this.inner.child(name, fn, options);
  }
}
