/**
 * `Promise.withResolvers` (ES2024) for Node 20, which lacks it. The Restate SDK calls it on every
 * journaled promise and every invocation; this package supplies it instead of requiring Node 22
 * (the project supports Node >= 20). It is installed by this package's entry only, and only when
 * the runtime has none: the harness core and every other package never see it.
 */

/** What `Promise.withResolvers()` returns. */
export interface PromiseResolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  // biome-ignore lint/suspicious/noExplicitAny: the standard library's signature.
  reject: (reason?: any) => void;
}

// A method-shorthand function: like the built-in it has `name` "withResolvers", `length` 0 and is
// not a constructor (`new Promise.withResolvers()` throws).
const methods = {
  /**
   * Spec steps (ECMA-262 27.2.4.7): C = this; NewPromiseCapability(C); return { promise, resolve,
   * reject }. Honours subclasses (`MyPromise.withResolvers()` makes a MyPromise) and throws a
   * TypeError when `this` is not a constructor or its executor is misused, as the built-in does.
   */
  withResolvers<T>(this: unknown): PromiseResolvers<T> {
    if (typeof this !== "function") throw new TypeError("Promise.withResolvers called on a non-constructor");
    let resolve: PromiseResolvers<T>["resolve"] | undefined;
    let reject: PromiseResolvers<T>["reject"] | undefined;
    const executor = (res: PromiseResolvers<T>["resolve"], rej: PromiseResolvers<T>["reject"]) => {
      if (resolve !== undefined || reject !== undefined) {
        throw new TypeError("Promise executor has already been invoked with non-undefined arguments");
      }
      resolve = res;
      reject = rej;
    };
    const promise = new (this as PromiseConstructor)<T>(executor);
    if (typeof resolve !== "function" || typeof reject !== "function") {
      throw new TypeError("Promise resolve or reject function is not callable");
    }
    return { promise, resolve, reject };
  },
};

/** The fallback implementation (exported for tests; use `Promise.withResolvers`). */
export const promiseWithResolvers = methods.withResolvers;

/**
 * Define `withResolvers` on `target` (default the global `Promise`) when it has none, with the
 * built-in's property attributes (writable, configurable, not enumerable). Returns whether it was
 * installed; an existing implementation (Node >= 22) is never replaced.
 */
export function installPromiseWithResolvers(target: object = Promise): boolean {
  if (typeof (target as { withResolvers?: unknown }).withResolvers === "function") return false;
  Object.defineProperty(target, "withResolvers", {
    value: promiseWithResolvers,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  return true;
}
