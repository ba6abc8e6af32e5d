import { describe, expect, it } from "vitest";
import { base64ToBytes, bytesToBase64, portableBase64ToBytes, portableBytesToBase64 } from "./base64.js";
import { portableUtf8ByteLength, utf8ByteLength } from "./utf8.js";

const texts = [
  "",
  "ascii",
  "é",
  "€ sign",
  "🧪 emoji",
  "lone \ud800 surrogate",
  "end \udc00",
  "x".repeat(70_000),
];

describe("portable encodings agree with Node's Buffer", () => {
  it("UTF-8 byte length", () => {
    for (const text of texts) {
      expect(portableUtf8ByteLength(text)).toBe(Buffer.byteLength(text, "utf8"));
      expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, "utf8"));
    }
  });

  it("base64 both ways, past the 32 KiB chunk size", () => {
    const big = new Uint8Array(100_000).map((_, i) => (i * 31) % 256);
    for (const bytes of [new Uint8Array(), Uint8Array.of(0, 255, 128), big]) {
      const expected = Buffer.from(bytes).toString("base64");
      expect(portableBytesToBase64(bytes)).toBe(expected);
      expect(bytesToBase64(bytes)).toBe(expected);
      expect(portableBase64ToBytes(expected)).toEqual(bytes);
      expect(base64ToBytes(expected)).toEqual(bytes);
    }
  });
});
