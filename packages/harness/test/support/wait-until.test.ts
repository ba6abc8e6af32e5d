import { describe, expect, it } from "vitest";
import { waitUntil } from "./wait-until.js";

describe("waitUntil (test support)", () => {
  it("resolves at once when the condition holds, and after the turn in which it starts to hold", async () => {
    await waitUntil(() => true);
    let ready = false;
    setImmediate(() => setImmediate(() => (ready = true)));
    await waitUntil(() => ready, "ready");
    expect(ready).toBe(true);
  });

  it("keeps checking past its eager turns, until the condition holds", async () => {
    let checks = 0;
    await waitUntil(() => ++checks > 150, "the 151st check");
    expect(checks).toBe(151);
  });

  it("fails naming what did not happen once its time is up", async () => {
    await expect(waitUntil(() => false, "the model was called", 10)).rejects.toThrow(
      "waitUntil: the model was called did not hold within 10 ms",
    );
  });
});
