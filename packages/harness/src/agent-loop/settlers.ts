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

/** Where {@link RunReactions} delivers the settlement of the call it watches. */
export interface ReactionTarget {
  /** The call's promise fulfilled with `value`. */
  settledWith(value: unknown): void;
  /** The call's promise rejected with `error`. */
  failedWith(error: unknown): void;
}

/**
 * The two reactions a run's calls share (its model attempts and tool calls in flight): made once
 * per run instead of two closures and their context per call. It watches one call at a time: a
 * call watched while another's promise is still pending (parallel tool calls, a wrap running
 * several attempts, a call after one that was abandoned and has not settled yet) gets reactions of
 * its own, so a settlement always reaches the call whose promise it is. A call that never settles
 * (a provider or tool deaf to abort) keeps the shared pair, and every later call of the run uses
 * reactions of its own: correct, only without the saving.
 */
const nativeThen = Promise.prototype.then;

export class RunReactions {
  private target: ReactionTarget | undefined = undefined;

  readonly fulfilled = (value: unknown): void => {
    const target = this.target;
    this.target = undefined;
    target?.settledWith(value);
  };

  readonly rejected = (error: unknown): void => {
    const target = this.target;
    this.target = undefined;
    target?.failedWith(error);
  };

  /**
   * Deliver `promise`'s settlement to `target`. The shared reactions assume a promise calls one
   * of them once: a promise with any other `then` (a native promise whose own `then` was
   * replaced could call back twice, and a second call would reach the next call) gets reactions
   * of its own, as does a call watched while another is pending.
   */
  watch(promise: PromiseLike<unknown>, target: ReactionTarget): void {
    if (this.target !== undefined || promise.then !== nativeThen) {
      promise.then(
        (value) => target.settledWith(value),
        (error: unknown) => target.failedWith(error),
      );
      return;
    }
    this.target = target;
    promise.then(this.fulfilled, this.rejected);
  }
}

/** Watch a call's promise with its run's shared reactions (made at the run's first call). */
export function watchCall(
  s: { reactions: RunReactions | undefined },
  promise: PromiseLike<unknown>,
  target: ReactionTarget,
): void {
  let reactions = s.reactions;
  if (reactions === undefined) {
    reactions = new RunReactions();
    s.reactions = reactions;
  }
  reactions.watch(promise, target);
}
