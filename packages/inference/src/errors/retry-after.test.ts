import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./retry-after.js";

const now = Date.UTC(2025, 0, 1, 12, 0, 0);

describe("parseRetryAfter", () => {
  it("reads seconds, including fractions", () => {
    expect(parseRetryAfter({ "retry-after": "3" }, now)).toBe(3000);
    expect(parseRetryAfter({ "retry-after": "1.5" }, now)).toBe(1500);
    expect(parseRetryAfter({ "retry-after": " 0 " }, now)).toBe(0);
  });

  it("reads an HTTP date relative to now, clamped at 0", () => {
    expect(parseRetryAfter({ "retry-after": "Wed, 01 Jan 2025 12:00:10 GMT" }, now)).toBe(10_000);
    expect(parseRetryAfter({ "retry-after": "Wed, 01 Jan 2025 11:00:00 GMT" }, now)).toBe(0);
  });

  it("prefers retry-after-ms (fractional milliseconds)", () => {
    expect(parseRetryAfter({ "retry-after-ms": "250.5", "retry-after": "9" }, now)).toBe(250.5);
    expect(parseRetryAfter({ "retry-after-ms": "soon", "retry-after": "2" }, now)).toBe(2000);
  });

  it("matches names case-insensitively on plain objects and works with Headers", () => {
    expect(parseRetryAfter({ "Retry-After": "4" }, now)).toBe(4000);
    expect(parseRetryAfter({ "RETRY-AFTER-MS": "40" }, now)).toBe(40);
    expect(parseRetryAfter(new Headers({ "Retry-After": "5" }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "7" }), now)).toBe(7);
  });

  it("gives undefined for garbage, negatives or nothing", () => {
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": undefined }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "-1" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "1e3" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "garbage 2020" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "Mon, 99 Foo 2025 99:99:99 GMT" }, now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });
});
