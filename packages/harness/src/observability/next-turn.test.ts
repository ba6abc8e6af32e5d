import { describe, expect, it } from "vitest";
import { afterThisTurn, commitAtTurnEnd } from "./next-turn.js";

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

  it("runs a commit handed in by a writer the turn end woke in that same turn, after every woken writer", async () => {
    const order: string[] = [];
    // A marker of the next turn, registered in the same turn end as the writers' commit.
    let nextTurnSeen: Promise<void> | undefined;
    const end = afterThisTurn();
    void end.then(() => {
      order.push("writer 1");
      nextTurnSeen = new Promise((resolve) =>
        setImmediate(() => {
          order.push("next turn");
          resolve();
        }),
      );
      commitAtTurnEnd(() => order.push("commit"));
    });
    void end.then(() => order.push("writer 2"));
    await end;
    await nextTurnSeen;
    expect(order).toEqual(["writer 1", "writer 2", "commit", "next turn"]);
  });

  it("runs a commit handed in outside a turn end at the end of the current turn, not synchronously", async () => {
    const order: string[] = [];
    commitAtTurnEnd(() => order.push("commit"));
    order.push("same tick");
    await Promise.resolve();
    expect(order).toEqual(["same tick"]); // not a microtask either: the turn's other work joins it
    await new Promise<void>((resolve) => commitAtTurnEnd(resolve));
    expect(order).toEqual(["same tick", "commit"]);
  });
});
