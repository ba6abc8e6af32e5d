import { describe, expect, it } from "vitest";
import { DeterministicIds } from "./deterministic-ids.js";

describe("DeterministicIds", () => {
  it("numbers ids per prefix, starting at 1", () => {
    const ids = new DeterministicIds();
    expect([ids.next("run"), ids.next("run"), ids.next("call"), ids.next("run")]).toEqual([
      "run-1",
      "run-2",
      "call-1",
      "run-3",
    ]);
    expect(ids.count("run")).toBe(3);
    expect(ids.count("other")).toBe(0);
  });

  it("reset() starts every counter again", () => {
    const ids = new DeterministicIds();
    ids.next("run");
    ids.next("call");
    ids.reset();
    expect(ids.next("run")).toBe("run-1");
    expect(ids.next("call")).toBe("call-1");
  });
});
