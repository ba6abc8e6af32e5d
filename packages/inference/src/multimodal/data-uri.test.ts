import { describe, expect, it } from "vitest";
import { decodeDataUri, encodeDataUri, parseDataUri } from "./data-uri.js";

describe("data URIs", () => {
  it("parses the header, parameters and payload", () => {
    expect(parseDataUri("data:Image/PNG;name=a.png;base64,iVBORw0KGgo=")).toEqual({
      mimeType: "image/png",
      parameters: { name: "a.png" },
      base64: true,
      data: "iVBORw0KGgo=",
    });
    expect(parseDataUri("data:,Hello%2C%20World")).toMatchObject({ mimeType: "text/plain", base64: false });
  });

  it("decodes base64 and percent-encoded payloads", () => {
    expect(decodeDataUri("data:text/plain;base64,aGk=")).toEqual({
      mimeType: "text/plain",
      bytes: new TextEncoder().encode("hi"),
    });
    expect(new TextDecoder().decode(decodeDataUri("data:,Hello%2C%20W%C3%B6rld é").bytes)).toBe(
      "Hello, Wörld é",
    );
  });

  it("round-trips through encodeDataUri", () => {
    const bytes = Uint8Array.from([0, 1, 2, 250, 255]);
    const uri = encodeDataUri(bytes, "application/octet-stream");
    expect(uri).toBe("data:application/octet-stream;base64,AAEC+v8=");
    expect(decodeDataUri(uri).bytes).toEqual(bytes);
  });

  it("refuses what is not a data URI, a missing comma, bad escapes and oversized payloads", () => {
    expect(() => parseDataUri("https://x/y.png")).toThrow(/expected a data: URI .* got "https:\/\/x\/y.png"/);
    expect(() => parseDataUri("data:image/png;base64")).toThrow(/no ','/);
    expect(() => decodeDataUri("data:,%G1")).toThrow(/broken percent-escape at position 0/);
    expect(() => decodeDataUri("data:image/png;base64,AAAA!")).toThrow(
      /image\/png payload is not valid base64/,
    );
    expect(() => decodeDataUri(`data:image/png;base64,${"A".repeat(4000)}`, { maxBytes: 1024 })).toThrow(
      /is 2.9 KiB, over the 1 KiB limit/,
    );
  });
});
