// The Restate SDK calls `Promise.withResolvers`, which Node 20 lacks (CI runs this on 20 and 22).
const nativeBefore = (Promise as { withResolvers?: unknown }).withResolvers;

import { describe, expect, it } from "vitest";
import {
  installPromiseWithResolvers,
  type PromiseResolvers,
  promiseWithResolvers,
} from "../src/compat/promise-with-resolvers.js";

const nodeMajor = Number(process.versions.node.split(".")[0]);

describe("Promise.withResolvers fallback", () => {
  it("is installed by the package entry exactly when the runtime lacks it", async () => {
    expect(nativeBefore === undefined).toBe(nodeMajor < 22);
    await import("../src/index.js");
    const installed = (Promise as { withResolvers?: unknown }).withResolvers;
    expect(typeof installed).toBe("function");
    // Node 20: ours; Node 22+: the built-in, untouched.
    expect(installed === promiseWithResolvers).toBe(nativeBefore === undefined);
    const { promise, resolve } = (installed as () => PromiseResolvers<number>).call(Promise);
    resolve(7);
    await expect(promise).resolves.toBe(7);
    // The first import of the package loads the whole Restate SDK: about 2 s on an idle 2-core
    // machine, past the default 5 s when the machine is loaded (it timed out once in a full run).
  }, 30_000);

  it("resolves and rejects its promise once, like the built-in", async () => {
    const a = promiseWithResolvers.call(Promise) as PromiseResolvers<string>;
    a.resolve("first");
    a.resolve("second");
    a.reject(new Error("late"));
    await expect(a.promise).resolves.toBe("first");
    const b = promiseWithResolvers.call(Promise) as PromiseResolvers<string>;
    b.reject(new Error("no"));
    await expect(b.promise).rejects.toThrow("no");
    const c = promiseWithResolvers.call(Promise) as PromiseResolvers<string>;
    c.resolve(Promise.resolve("adopted"));
    await expect(c.promise).resolves.toBe("adopted");
  });

  it("uses `this` as the constructor (subclasses) and rejects non-constructors", () => {
    class Tracked<T> extends Promise<T> {}
    const { promise } = promiseWithResolvers.call(Tracked) as PromiseResolvers<number>;
    expect(promise).toBeInstanceOf(Tracked);
    expect(() => promiseWithResolvers.call(undefined)).toThrow(TypeError);
    expect(() => promiseWithResolvers.call({})).toThrow(TypeError);
    // A "constructor" whose executor never receives callable functions.
    function Broken(executor: (a: unknown, b: unknown) => void) {
      executor(1, 2);
    }
    expect(() => promiseWithResolvers.call(Broken)).toThrow(TypeError);
  });

  it("has the built-in's shape: name, length, not a constructor", () => {
    expect(promiseWithResolvers.name).toBe("withResolvers");
    expect(promiseWithResolvers.length).toBe(0);
    const Ctor = promiseWithResolvers as unknown as new () => unknown;
    expect(() => new Ctor()).toThrow(TypeError);
  });

  it("installs with the built-in's attributes only where none exists", () => {
    const bare = {};
    expect(installPromiseWithResolvers(bare)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(bare, "withResolvers")).toEqual({
      value: promiseWithResolvers,
      writable: true,
      enumerable: false,
      configurable: true,
    });
    const own = () => "mine";
    const existing = { withResolvers: own };
    expect(installPromiseWithResolvers(existing)).toBe(false);
    expect(existing.withResolvers).toBe(own);
  });
});
