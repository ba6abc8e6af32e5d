import { describe, expect, it } from "vitest";
import { afterThisTurn } from "./next-turn.js";

describe("afterThisTurn", () => {
  it("gives every caller of one turn the same turn end, and a caller from its callbacks the next one", async () => {
    const first = afterThisTurn();
    const second = afterThisTurn();
    expect(second).toBe(first);
    const order: string[] = [];
    void first.then(() => order.push("first"));
    void second.then(() => order.push("second"));
    let next: Promise<void> | undefined;
    await first.then(() => {
      next = afterThisTurn();
    });
    expect(order).toEqual(["first", "second"]);
    expect(next).toBeDefined();
    expect(next).not.toBe(first);
    let settled = false;
    void next?.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false); // not settled by the turn end that created it
    await next;
    expect(settled).toBe(true);
  });
});
