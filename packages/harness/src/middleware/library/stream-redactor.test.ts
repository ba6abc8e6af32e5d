import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_REDACTION_PATTERNS } from "./redaction-patterns.js";
import { StreamRedactor } from "./stream-redactor.js";
import { TextRedactor } from "./text-redactor.js";

const KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
const PROSE =
  "The deployment finished without errors. Logs were rotated, the cache was warmed and the " +
  "health checks passed on every node before traffic moved over. ";

const redactor = () => new TextRedactor("redaction", DEFAULT_REDACTION_PATTERNS, (n) => `[REDACTED:${n}]`);

/** Stream `pieces` through a fresh StreamRedactor: what each push returned, then the flushed tail. */
function stream(pieces: readonly string[], holdback = 128): { outputs: string[]; tail: string } {
  const s = new StreamRedactor(redactor(), holdback);
  const outputs = pieces.map((piece) => s.push(piece));
  const tail = s.end();
  return { outputs, tail };
}

/** Every piece of `text` split at the given positions. */
function splitAt(text: string, positions: readonly number[]): string[] {
  const pieces: string[] = [];
  let last = 0;
  for (const p of positions) {
    pieces.push(text.slice(last, p));
    last = p;
  }
  pieces.push(text.slice(last));
  return pieces;
}

/** True when `out` holds any 6-character run of the key's secret part. */
function leaks(out: string): boolean {
  for (let i = 0; i + 6 <= KEY.length; i++) if (out.includes(KEY.slice(i, i + 6))) return true;
  return false;
}

describe("StreamRedactor", () => {
  // Long enough prose on both sides that the window slides over the key while it streams.
  const text = `${PROSE}${PROSE}my key is ${KEY} — keep it. ${PROSE}`;
  const keyAt = text.indexOf(KEY);
  const expected = redactor().text(text);

  it("a key split at every position across two pieces never comes out, in any piece", () => {
    for (let i = 1; i < text.length; i++) {
      const { outputs, tail } = stream(splitAt(text, [i]));
      for (const out of [...outputs, tail]) expect(leaks(out), `split at ${i}: ${out}`).toBe(false);
      expect([...outputs, tail].join(""), `split at ${i}`).toBe(expected);
    }
  });

  it("a key split at every pair of positions across three pieces never comes out", () => {
    for (let i = keyAt - 2; i <= keyAt + KEY.length + 1; i++) {
      for (let j = i + 1; j <= keyAt + KEY.length + 2; j++) {
        const { outputs, tail } = stream(splitAt(text, [i, j]));
        for (const out of [...outputs, tail]) expect(leaks(out), `split at ${i}, ${j}`).toBe(false);
        expect([...outputs, tail].join(""), `split at ${i}, ${j}`).toBe(expected);
      }
    }
  });

  it("a key streamed a few characters at a time is held until it is complete", () => {
    const pieces = text.match(/[\s\S]{1,3}/g) ?? [];
    const { outputs, tail } = stream(pieces);
    for (const out of [...outputs, tail]) expect(leaks(out)).toBe(false);
    expect([...outputs, tail].join("")).toBe(expected);
  });

  it("ordinary text passes unchanged and in order, lagging by the holdback, the rest at the end", () => {
    const words = `${PROSE}${PROSE}${PROSE}`.split(/(?<= )/);
    const s = new StreamRedactor(redactor(), 64);
    let seen = "";
    let received = "";
    for (const word of words) {
      received += word;
      seen += s.push(word);
      // Everything but the last 64 characters (plus the scan slack, a quarter of that, and the
      // current word) is out already.
      expect(received.startsWith(seen)).toBe(true);
      expect(received.length - seen.length).toBeLessThanOrEqual(64 + 16 + word.length);
    }
    expect(s.held).toBeGreaterThan(0);
    const tail = s.end();
    expect(seen + tail).toBe(received);
    expect(s.held).toBe(0);
  });

  it("lookbehind sees what came before a cut: a match is found exactly where one-shot redaction finds it", () => {
    // `\bsk-` must not match inside "tasks-..." whatever the cut.
    const tricky = `${PROSE}subtasks-and-more-subtasks-management-overview-document ${KEY} end`;
    const once = redactor().text(tricky);
    expect(once).toContain("subtasks-and-more");
    for (let i = 1; i < tricky.length; i += 1) {
      const { outputs, tail } = stream(splitAt(tricky, [i]), 24);
      expect([...outputs, tail].join(""), `split at ${i}`).toBe(once);
    }
  });

  it("each pattern sees what it saw before a cut as lookbehind, masks included", () => {
    // Found by the property below: right after a masked address, "-@a00-.sk" is an address too.
    const input = "alice@example.org-@a00-.sk-0@@  0a.. 04111 1111 1111 1111";
    const once = redactor().text(input);
    for (let i = 0; i <= input.length; i++) {
      const { outputs, tail } = stream(splitAt(input, [i]), 40);
      expect([...outputs, tail].join(""), `split at ${i}`).toBe(once);
    }
  });

  it("a secret that needs more than the holdback to be recognised (JWT, PEM) is held while it arrives", () => {
    const jwt = `eyJ${"a".repeat(200)}.${"b".repeat(200)}.${"c".repeat(200)}`;
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${"MIIEpAIBAAKCAQEA\n".repeat(40)}-----END RSA PRIVATE KEY-----`;
    const input = `${PROSE}token ${jwt} done ${PROSE} key:\n${pem}\n${PROSE}`;
    const once = redactor().text(input);
    expect(once).not.toContain("aaaa");
    expect(once).not.toContain("MIIE");
    for (const size of [1, 7, 50, 333]) {
      const pieces = input.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];
      const { outputs, tail } = stream(pieces, 32);
      for (const out of [...outputs, tail]) {
        expect(out).not.toContain("aaaa");
        expect(out).not.toContain("bbbb");
        expect(out).not.toContain("MIIE");
      }
      expect([...outputs, tail].join("")).toBe(once);
    }
  });

  it("holds a growing match at most maxHold characters, then masks what it has", () => {
    const s = new StreamRedactor(redactor(), 32, 256);
    let out = s.push("key: ");
    for (let i = 0; i < 100; i++) out += s.push(i === 0 ? "sk-" : "abcdefgh");
    expect(s.held).toBeLessThanOrEqual(256 + 8);
    out += s.end();
    expect(out).toContain("[REDACTED:api_key]");
    expect(out.startsWith("key: [REDACTED:api_key]")).toBe(true);
  });

  it("empty pieces are free; end() with nothing held is empty and resets", () => {
    const s = new StreamRedactor(redactor(), 8);
    expect(s.push("")).toBe("");
    expect(s.end()).toBe("");
    expect(s.push("hello")).toBe("");
    s.reset();
    expect(s.end()).toBe("");
  });

  it("property: streamed in any pieces, the output is the one-shot redaction", () => {
    const fragment = fc.oneof(
      fc.constantFrom(
        KEY,
        "alice@example.org",
        "4111 1111 1111 1111",
        "123-45-6789",
        "AKIAABCDEFGHIJKLMNOP",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "xoxb-1234567890-abcdef",
        "Bearer abcdefghijklmnopqrstuvwxyz",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----",
        "-----END PRIVATE KEY-----",
        "sk-",
        "eyJ",
        "Bearer ",
        "4111",
        " ",
        "\n",
        "the ",
        "deploy ",
        ", ",
      ),
      fc.stringMatching(/^[a-z0-9@. _-]{1,12}$/),
    );
    fc.assert(
      fc.property(
        fc.array(fragment, { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        // At least the longest default pattern needs to be recognised (a card number: 38).
        fc.integer({ min: 40, max: 128 }),
        (fragments, cuts, holdback) => {
          const input = fragments.join("");
          // The documented reach: an e-mail address (a run of these characters) longer than the
          // holdback is not recognised in time; keep generated runs within it.
          const longestRun = Math.max(0, ...(input.match(/[\w.%+@-]+/g) ?? []).map((r) => r.length));
          fc.pre(longestRun <= holdback - 2);
          const positions = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
          const { outputs, tail } = stream(splitAt(input, positions), holdback);
          expect([...outputs, tail].join("")).toBe(redactor().text(input));
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });
});
