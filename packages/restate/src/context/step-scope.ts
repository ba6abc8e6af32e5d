import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Whether the code running now is inside a step's closure. Inside a step, nondeterminism is
 * harmless (the step's result is what gets journaled) and Restate's deterministic helpers must
 * not be used: `ctx.rand` would advance differently on replay, when the closure does not run, and
 * shift every id generated after it. So the durable context reads the real clock and a real UUID
 * there, and the journaled ones everywhere else.
 */
const scope = new AsyncLocalStorage<true>();

/** Run `fn` marked as inside a step. */
export function runInStep<T>(fn: () => Promise<T>): Promise<T> {
  return scope.run(true, fn);
}

/** True inside a step's closure (see {@link runInStep}). */
export function inStep(): boolean {
  return scope.getStore() === true;
}
