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

  it("the portable hash is right at every block boundary, fed whole or in uneven pieces", () => {
    // Padding takes one block below 56 bytes in the last block and two from 56 on; pieces that
    // straddle the 64-byte block exercise the pending buffer.
    for (const size of [0, 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000]) {
      const text = "abcdefghij".repeat(101).slice(0, size);
      expect(createSha256({ portable: true }).update(text).hex(), `size ${size}`).toBe(reference(text));
      const pieces = createSha256({ portable: true });
      for (let i = 0; i < size; i += 7) pieces.update(text.slice(i, i + 7));
      expect(pieces.hex(), `size ${size} in 7-byte pieces`).toBe(reference(text));
    }
  });
});
