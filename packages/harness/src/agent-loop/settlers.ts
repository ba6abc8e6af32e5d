/**
 * A promise settled from outside, for the loop's calls in flight (`UnaryAttempt`,
 * `AsyncToolCall`): `new Promise(executor)` with an executor closure per call costs a closure and
 * its context on every model and tool call; one module-level executor hands the settle functions
 * over instead (the executor runs synchronously inside the constructor, so nothing can interleave).
 */

/** What {@link settledBy} fills in: the settle functions of the promise it returns. */
export interface Settlers<T> {
  resolve: ((value: T | PromiseLike<T>) => void) | undefined;
  reject: ((reason: unknown) => void) | undefined;
}

let takenResolve: ((value: never) => void) | undefined;
let takenReject: ((reason: unknown) => void) | undefined;

function take(resolve: (value: never) => void, reject: (reason: unknown) => void): void {
  takenResolve = resolve;
  takenReject = reject;
}

/** A new pending promise whose `resolve` / `reject` are stored on `target`. */
export function settledBy<T>(target: Settlers<T>): Promise<T> {
  const promise = new Promise<T>(take);
  target.resolve = takenResolve as Settlers<T>["resolve"];
  target.reject = takenReject;
  takenResolve = undefined;
  takenReject = undefined;
  return promise;
}
