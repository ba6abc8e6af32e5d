import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { base64ByteLength, decodeBase64, encodeBase64 } from "./base64.js";

const bytes = (...values: number[]) => Uint8Array.from(values);

describe("base64", () => {
  it("round-trips any bytes and matches Node's encoder", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (data) => {
        const encoded = encodeBase64(data);
        expect(encoded).toBe(Buffer.from(data).toString("base64"));
        expect(decodeBase64(encoded)).toEqual(data);
        expect(base64ByteLength(encoded)).toBe(data.length);
      }),
    );
  });

  it("accepts missing padding, URL-safe characters and line breaks", () => {
    expect(decodeBase64("/+8")).toEqual(bytes(0xff, 0xef));
    expect(decodeBase64("_-8=")).toEqual(bytes(0xff, 0xef));
    expect(decodeBase64("aGVs\r\nbG8=\n")).toEqual(new TextEncoder().encode("hello"));
    expect(decodeBase64("")).toEqual(bytes());
  });

  it("rejects bad characters, misplaced or wrong padding and truncated data, saying where", () => {
    const fails = (text: string, pattern: RegExp) => {
      let error: unknown;
      try {
        decodeBase64(text, "the payload");
      } catch (caught) {
        error = caught;
      }
      expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
      expect((error as Error).message).toMatch(pattern);
    };
    fails("aGVs*G8=", /the payload is not valid base64: unexpected "\*" at position 4/);
    fails("aG=sbG8=", /unexpected '=' \(padding is only allowed at the end\) at position 2/);
    fails("aGVsb", /5 characters cannot encode whole bytes/);
    fails("aGVsbA=", /padding must bring the length to a multiple of 4/);
    fails("aGVs===", /padding/);
    fails("héllo", /unexpected "é" at position 1/);
  });
});
