import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSha256, sha256Hex } from "./sha256.js";

const inputs = [
  "",
  "abc",
  "héllo wörld ✓ 🧪",
  "x".repeat(10_000),
  JSON.stringify({ role: "user", content: "hi" }),
];
const reference = (text: string) => createHash("sha256").update(text).digest("hex");

describe("sha256", () => {
  it("sha256Hex matches Node's SHA-256 on UTF-8 text", () => {
    for (const text of inputs) expect(sha256Hex(text)).toBe(reference(text));
  });

  for (const portable of [false, true]) {
    it(`a running ${portable ? "portable" : "native"} hash digests, forks and goes on like Node's`, () => {
      const hash = createSha256({ portable });
      let fed = "";
      for (const text of inputs) {
        hash.update(text);
        fed += text;
        expect(hash.hex()).toBe(reference(fed));
      }
      const fork = hash.copy().update("tail");
      expect(fork.hex()).toBe(reference(`${fed}tail`));
      expect(hash.hex()).toBe(reference(fed));
    });
  }
});
