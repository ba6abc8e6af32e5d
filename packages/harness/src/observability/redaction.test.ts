import { type JsonValue, registerSecrets } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { Redactor } from "./redaction.js";

const OPENAI = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789";
const ANTHROPIC = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789-abc";
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

describe("Redactor", () => {
  const redactor = new Redactor();

  it.each([
    [`key ${OPENAI} here`, "key [REDACTED] here"],
    [`use ${ANTHROPIC}`, "use [REDACTED]"],
    ["Authorization: Bearer abc.DEF-123_xyz", "Authorization: Bearer [REDACTED]"],
    ['{"x-api-key": "k-123456789"}', '{"x-api-key": "[REDACTED]"}'],
    ["api_key=abcd1234efgh&x=1", "api_key=[REDACTED]&x=1"],
    ["aws AKIAIOSFODNN7EXAMPLE id", "aws [REDACTED] id"],
    [
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "aws_secret_access_key = [REDACTED]",
    ],
    [`token ${JWT}`, "token [REDACTED]"],
    ["ghp_0123456789abcdefghijklmnopqrstuvwxyz", "[REDACTED]"],
    ["nothing secret, 42 tokens", "nothing secret, 42 tokens"],
    // The shortest default shape (11 characters): strings shorter than it skip the patterns.
    ["secret=abcd", "secret=[REDACTED]"],
    ["apikey:wxyz", "apikey:[REDACTED]"],
    ["secret=abc", "secret=abc"],
  ])("scrubs secret shapes in strings: %s", (input, expected) => {
    expect(redactor.redactString(input)).toBe(expected);
  });

  it("replaces secret fields wholesale and leaves token counts alone", () => {
    const input = {
      headers: { Authorization: "Basic Zm9vOmJhcg==", "X-Api-Key": "plain", accept: "json" },
      openaiApiKey: "whatever",
      clientSecret: { nested: true },
      password: "hunter2",
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 1 },
      list: ["ok", `bad ${OPENAI}`],
      empty: null,
    };
    expect(redactor.redact(input as unknown as JsonValue)).toEqual({
      headers: { Authorization: "[REDACTED]", "X-Api-Key": "[REDACTED]", accept: "json" },
      openaiApiKey: "[REDACTED]",
      clientSecret: "[REDACTED]",
      password: "[REDACTED]",
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 1 },
      list: ["ok", "bad [REDACTED]"],
      empty: null,
    });
    expect(input.headers.Authorization).toBe("Basic Zm9vOmJhcg=="); // the original is untouched
  });

  it("scrubs registered model credentials however short the string around them", () => {
    const key = "k9-Zq7wXv"; // no default shape matches it; a model registered it
    registerSecrets([key]);
    expect(redactor.redact({ h: key, s: `a${key}` })).toEqual({ h: "[REDACTED]", s: "a[REDACTED]" });
  });

  // Strings found clean are remembered (ids, types and names repeat in every observation) — only
  // until the credentials change: a string that held no secret may hold a newly registered one.
  it("checks a remembered clean string again once a new model credential is registered", () => {
    const text = "zz-credential-7788";
    expect(redactor.redactString(text)).toBe(text);
    expect(redactor.redact({ a: text })).toEqual({ a: text });
    registerSecrets(["credential-7788"]);
    expect(redactor.redactString(text)).toBe("zz-[REDACTED]");
    expect(new Redactor().redact({ a: text })).toEqual({ a: "zz-[REDACTED]" });
  });

  it("inserts a replacement literally: `$&` or `$1` in it cannot put the secret back", () => {
    for (const replacement of ["$&", "<$1>", "$$"]) {
      const out = new Redactor({ replacement }).redactString(`key ${OPENAI} and Bearer ${OPENAI}`);
      expect(out).not.toContain(OPENAI);
      expect(out).toBe(`key ${replacement} and Bearer ${replacement}`);
    }
  });

  it("returns clean values as the same object (copy-on-write)", () => {
    const clean = { a: [1, { b: "text" }], c: { d: true } };
    expect(redactor.redact(clean as JsonValue)).toBe(clean);
  });

  it("takes extra fields and patterns, or none of the defaults", () => {
    const custom = new Redactor({ fields: ["ssn"], patterns: [/\b\d{4}-\d{4}\b/g], replacement: "***" });
    expect(custom.redact({ SSN: "1", note: "card 1234-5678", key: OPENAI })).toEqual({
      SSN: "***",
      note: "card ***",
      key: "***",
    });
    // Custom patterns may match strings shorter than any default shape.
    expect(new Redactor({ patterns: [/\bpin\d{2}\b/g] }).redact({ a: "pin42", b: ["x pin07"] })).toEqual({
      a: "[REDACTED]",
      b: ["x [REDACTED]"],
    });
    const bare = new Redactor({ defaults: false, fields: ["x"] });
    expect(bare.redact({ x: 1, password: OPENAI })).toEqual({ x: "[REDACTED]", password: OPENAI });
  });
});

describe("Redactor.secretRanges and replaceRanges", () => {
  const redactor = new Redactor();

  it("finds what redactString replaces, as sorted ranges without a keep shape's label", () => {
    const text = `a ${OPENAI} b Authorization: Bearer abcd1234efgh c password=hunter22 d`;
    const ranges = redactor.secretRanges(text);
    const pieces = [];
    for (let i = 0; i < ranges.length; i += 2) pieces.push(text.slice(ranges[i], ranges[i + 1]));
    expect(pieces).toEqual([OPENAI, "abcd1234efgh", "hunter22"]);
    expect(redactor.replaceRanges(text, ranges)).toBe(redactor.redactString(text));
    expect(redactor.secretRanges("nothing secret here at all")).toEqual([]);
  });

  it("finds every occurrence of a registered credential, glued or not", () => {
    registerSecrets(["ranges-cred-9931"]);
    expect(redactor.secretRanges("xranges-cred-9931 ranges-cred-9931y")).toEqual([1, 17, 18, 34]);
  });

  it("finds a key glued to a registered credential, as redactString does", () => {
    registerSecrets(["tenantKey42"]);
    const text = `x tenantKey42${OPENAI} y`;
    const redacted = redactor.replaceRanges(text, redactor.secretRanges(text));
    expect(redacted).not.toContain(OPENAI.slice(3, 20));
    expect(redacted).toBe("x [REDACTED] y"); // adjacent ranges: one replacement
    expect(redactor.redactString(text)).toBe("x [REDACTED][REDACTED] y");
  });

  it("merges overlapping and adjacent ranges into one replacement, in any order", () => {
    const custom = new Redactor({ replacement: "#" });
    expect(custom.replaceRanges("0123456789", [6, 8, 1, 3, 2, 4, 4, 5])).toBe("0#5#89");
    expect(custom.replaceRanges("abc", [])).toBe("abc");
  });

  it("stops on a pattern without the g flag and on empty matches", () => {
    const odd = new Redactor({ defaults: false, patterns: [/pin-\d+/, /z*/g] });
    expect(odd.secretRanges("pin-1 pin-2 zz")).toEqual([0, 5, 12, 14]);
  });
});
