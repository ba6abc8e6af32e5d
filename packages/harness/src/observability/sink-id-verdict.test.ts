import { describe, expect, it, vi } from "vitest";
import { Redactor } from "./redaction.js";
import { SinkIdVerdict } from "./sink-id-verdict.js";

// The verdict stands for every id `${prefix}${offset}` with the offset's digit count: it must
// never call an id clean that redaction would change, and it costs one probe per prefix and
// digit count (the built-in shapes treat all digits alike).

const prefixes = [
  "run-1-evt-",
  "journal-run-42-evt-",
  "3f0c2a9e-1b7d-4c55-9a61-0c1f2e3d4b5a-evt-",
  // `sk-` and 16 characters of [A-Za-z0-9_-] once the offset has 1 digit, 6 with 2 digits.
  "sk-abcdefghij-evt-",
  "sk-abc-evt-",
  "Bearer abcdefgh-evt-",
  "password=-evt-",
  "xoxb-12345-evt-",
  "ghp_abcdefghijklmnopqrstuvwxyz012-evt-",
];

describe("SinkIdVerdict", () => {
  it("never calls an id clean that the redactor would change (offsets 0 to 12,000, secret-shaped prefixes)", () => {
    const redactor = new Redactor();
    const verdict = new SinkIdVerdict(redactor);
    let clean = 0;
    for (const prefix of prefixes) {
      for (let offset = 0; offset <= 12_000; offset += offset < 200 ? 1 : 37) {
        const id = prefix + offset;
        if (!verdict.isClean(offset, id.length, prefix, [])) continue;
        clean++;
        expect(redactor.redactString(id), id).toBe(id);
      }
    }
    // The clean prefixes are recognised as such (the check is not vacuous).
    expect(clean).toBeGreaterThan(500);
    expect(verdict.isClean(7, "run-1-evt-7".length, "run-1-evt-", [])).toBe(true);
    expect(verdict.isClean(7, "sk-abcdefghij-evt-7".length, "sk-abcdefghij-evt-", [])).toBe(false);
  });

  it("the digit count matters: a prefix one digit short of a shape is clean only for shorter offsets", () => {
    const redactor = new Redactor();
    const verdict = new SinkIdVerdict(redactor);
    // `sk-` + "abcde-evt-" (10) + digits: a shape from 6 digits on.
    const prefix = "sk-abcde-evt-";
    expect(verdict.isClean(12345, prefix.length + 5, prefix, [])).toBe(true);
    expect(verdict.isClean(123456, prefix.length + 6, prefix, [])).toBe(false);
    expect(redactor.redactString(`${prefix}123456`)).not.toBe(`${prefix}123456`);
  });

  it("takes one probe per prefix and digit count, then answers without scanning", () => {
    const redactor = new Redactor();
    const probe = vi.spyOn(redactor, "redactString");
    const verdict = new SinkIdVerdict(redactor);
    for (let offset = 0; offset < 100; offset++)
      expect(verdict.isClean(offset, `run-9-evt-${offset}`.length, "run-9-evt-", [])).toBe(true);
    // Two digit counts (0-9, 10-99): one probe each.
    expect(probe).toHaveBeenCalledTimes(2);
  });

  it("a registered credential that could reach into the digits makes the verdict 'not clean'", () => {
    const verdict = new SinkIdVerdict(new Redactor());
    expect(verdict.isClean(5, "run-1-evt-5".length, "run-1-evt-", ["evt-5"])).toBe(false);
    verdict.forget();
    expect(verdict.isClean(5, "run-1-evt-5".length, "run-1-evt-", ["unrelated-key"])).toBe(true);
  });

  it("custom patterns: never clean (they may treat digits differently)", () => {
    const verdict = new SinkIdVerdict(new Redactor({ patterns: [/evt-1\d/g] }));
    expect(verdict.isClean(0, "run-1-evt-0".length, "run-1-evt-", [])).toBe(false);
  });
});
