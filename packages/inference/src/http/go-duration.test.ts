import { describe, expect, it } from "vitest";
import { parseGoDuration } from "./go-duration.js";

describe("parseGoDuration", () => {
  it.each([
    ["6m0s", 360_000],
    ["2.01s", 2010],
    ["12ms", 12],
    ["1s", 1000],
    ["1h2m3.5s", 3_723_500],
    ["0", 0],
    ["0s", 0],
    ["500us", 0.5],
    ["250µs", 0.25],
    ["1500ns", 0.0015],
    [" 17ms ", 17],
    [".5s", 500],
  ])("%s -> %d ms", (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([undefined, null, "", "5", "-1s", "1x", "s", "1s garbage", "1e3s", "soon"])(
    "%j -> undefined",
    (text) => {
      expect(parseGoDuration(text)).toBeUndefined();
    },
  );
});
