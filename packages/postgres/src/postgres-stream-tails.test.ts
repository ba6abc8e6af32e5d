import { describe, expect, it } from "vitest";
import { StreamTails } from "./postgres-stream-tails.js";

describe("StreamTails", () => {
  it("remembers each stream's committed tail and forgets it on request", () => {
    const tails = new StreamTails();
    tails.set("a", 3, '"x"', undefined);
    expect(tails.get("a")).toEqual({ next: 3, last: '"x"', lastOffset: undefined });
    tails.set("a", 5, '{"offset":7}', 7);
    expect(tails.get("a")).toEqual({ next: 5, last: '{"offset":7}', lastOffset: 7 });
    tails.forget("a");
    expect(tails.get("a")).toBeUndefined();
  });

  it("keeps the offsets (next, and the last line's offset field) but not a line too large to hold", () => {
    const tails = new StreamTails();
    tails.set("big", 1, "x".repeat(20_000), 41);
    expect(tails.get("big")).toEqual({ next: 1, last: undefined, lastOffset: 41 });
  });

  it("a tail without its line (a journal's: only offsets are checked) counts nothing against the line bound", () => {
    const tails = new StreamTails();
    const line = "z".repeat(16_000);
    for (let i = 0; i < 64; i++) tails.set(`line${i}`, 1, line, undefined);
    for (let i = 0; i < 1000; i++) tails.set(`journal${i}`, 2, undefined, 1);
    expect(tails.get("journal999")).toEqual({ next: 2, last: undefined, lastOffset: 1 });
    // The 64 lines still fit in the 1 MiB bound: none was pushed out by the line-less tails.
    expect(tails.get("line0")).toEqual({ next: 1, last: line, lastOffset: undefined });
  });

  it("is bounded: the least recently written streams are forgotten first", () => {
    const tails = new StreamTails();
    const line = "y".repeat(16_000);
    for (let i = 0; i < 100; i++) tails.set(`s${i}`, 1, line, undefined);
    tails.set("s0", 2, line, undefined); // written again: now the most recent
    // 1 MiB of lines holds 65 of these: the oldest (s1...) went first.
    expect(tails.get("s1")).toBeUndefined();
    expect(tails.get("s0")).toEqual({ next: 2, last: line, lastOffset: undefined });
    expect(tails.get("s99")).toEqual({ next: 1, last: line, lastOffset: undefined });
    for (let i = 0; i < 5000; i++) tails.set(`t${i}`, 1, "1", undefined);
    expect(tails.get("s99")).toBeUndefined(); // past 4,096 streams
    expect(tails.get("t4999")).toEqual({ next: 1, last: "1", lastOffset: undefined });
  });
});
