import { describe, expect, it } from "vitest";
import { AsyncQueue } from "./async-queue.js";

describe("AsyncQueue", () => {
  it("hands queued items over in order, then waits for the next push", async () => {
    const queue = new AsyncQueue<string>();
    queue.push("a");
    queue.push("b");
    expect(await queue.next()).toEqual({ value: "a", done: false });
    expect(await queue.next()).toEqual({ value: "b", done: false });
    const waiting = queue.next();
    queue.push("c");
    expect(await waiting).toEqual({ value: "c", done: false });
    queue.close();
    expect(await queue.next()).toEqual({ value: undefined, done: true });
  });

  it("fail: the queued items, then one rejection, then done; a waiting read is rejected", async () => {
    const queue = new AsyncQueue<string>();
    queue.push("a");
    queue.fail(new Error("run failed"));
    queue.push("ignored");
    expect(await queue.next()).toEqual({ value: "a", done: false });
    await expect(queue.next()).rejects.toThrow("run failed");
    expect(await queue.next()).toEqual({ value: undefined, done: true });

    const other = new AsyncQueue<string>();
    const waiting = other.next();
    other.fail(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(await other.next()).toEqual({ value: undefined, done: true });
  });

  it("take: the next queued item synchronously, undefined when empty", () => {
    const queue = new AsyncQueue<string>();
    expect(queue.take()).toBeUndefined();
    queue.push("a");
    queue.push("b");
    expect([queue.take(), queue.take(), queue.take()]).toEqual(["a", "b", undefined]);
  });

  it("is its own iterator, for one consumer", async () => {
    const queue = new AsyncQueue<number>();
    for (let i = 0; i < 3000; i++) queue.push(i);
    queue.close();
    let sum = 0;
    let count = 0;
    for await (const n of queue) {
      sum += n;
      count++;
    }
    expect(count).toBe(3000);
    expect(sum).toBe((2999 * 3000) / 2);
  });
});
