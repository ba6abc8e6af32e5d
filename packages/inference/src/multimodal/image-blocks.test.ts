import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { encodeBase64 } from "./base64.js";
import { encodeDataUri } from "./data-uri.js";
import { JPEG_HEAD, PDF_HEAD, PNG_1X1 } from "./fixtures.fixture.js";
import {
  imageBlockFromBase64,
  imageBlockFromBytes,
  imageBlockFromDataUri,
  imageBlockFromUrl,
  imageBlockToUrl,
} from "./image-blocks.js";

const PNG_B64 = encodeBase64(PNG_1X1);

describe("image blocks", () => {
  it("builds an inline block from bytes, typed by the bytes", () => {
    expect(imageBlockFromBytes(PNG_1X1, { detail: "low" })).toEqual({
      type: "image",
      source: { kind: "base64", data: PNG_B64, mimeType: "image/png" },
      detail: "low",
    });
    expect(imageBlockFromBytes(JPEG_HEAD, { mimeType: "image/png" }).source).toMatchObject({
      mimeType: "image/jpeg",
    });
    expect(imageBlockFromBytes(Uint8Array.from([1, 2, 3]), { mimeType: "image/webp" }).source).toMatchObject({
      mimeType: "image/webp",
    });
  });

  it("refuses unknown types, disallowed types, empty and oversized images with actionable messages", () => {
    expect(() => imageBlockFromBytes(Uint8Array.from([1, 2, 3]))).toThrow(
      /could not tell the image type .* pass \{ mimeType \}/,
    );
    expect(() => imageBlockFromBytes(PDF_HEAD)).toThrow(
      /application\/pdf, which is not accepted here \(allowed: image\/png, image\/jpeg, image\/gif, image\/webp\)/,
    );
    expect(
      imageBlockFromBytes(PDF_HEAD, { limits: { allowedMimeTypes: ["application/pdf"] } }).source,
    ).toMatchObject({
      mimeType: "application/pdf",
    });
    expect(() => imageBlockFromBytes(new Uint8Array(0), { mimeType: "image/png" })).toThrow(
      /empty \(0 bytes\)/,
    );
    const big = new Uint8Array(6 * 1024 * 1024);
    big.set(PNG_1X1);
    try {
      imageBlockFromBytes(big);
      expect.unreachable();
    } catch (error) {
      expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
      expect((error as TinyAgentsError).message).toBe(
        "the image is 6 MiB, over the 5 MiB limit; resize or compress it, or raise limits.maxBytes if the provider accepts more",
      );
      expect((error as TinyAgentsError).details).toMatchObject({
        bytes: big.length,
        maxBytes: 5 * 1024 * 1024,
      });
    }
    expect(imageBlockFromBytes(big, { limits: { maxBytes: 8 * 1024 * 1024 } }).type).toBe("image");
  });

  it("decodes data URIs and base64 text into canonical inline blocks", () => {
    const expected = { type: "image", source: { kind: "base64", data: PNG_B64, mimeType: "image/png" } };
    expect(imageBlockFromDataUri(encodeDataUri(PNG_1X1, "image/png"))).toEqual(expected);
    // wrong declared type, URL-safe alphabet, no padding: the bytes decide and the output is canonical
    const sloppy = `data:image/jpeg;base64,${PNG_B64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
    expect(imageBlockFromDataUri(sloppy)).toEqual(expected);
    expect(imageBlockFromBase64(`${PNG_B64.slice(0, 20)}\n${PNG_B64.slice(20)}`, "image/png")).toEqual(
      expected,
    );
    expect(() => imageBlockFromDataUri("data:image/png;base64,@@@@")).toThrow(
      /not valid base64: unexpected "@" at position 0/,
    );
    expect(() =>
      imageBlockFromDataUri(`data:image/png;base64,${"A".repeat(400)}`, { limits: { maxBytes: 100 } }),
    ).toThrow(/over the 100 B limit/);
  });

  it("keeps http(s) URLs, inlines data URIs and refuses other schemes", () => {
    expect(imageBlockFromUrl(" https://example.com/cat.png ", { detail: "high" })).toEqual({
      type: "image",
      source: { kind: "url", url: "https://example.com/cat.png" },
      detail: "high",
    });
    expect(imageBlockFromUrl(encodeDataUri(PNG_1X1, "image/png")).source.kind).toBe("base64");
    expect(() => imageBlockFromUrl("file:///tmp/cat.png")).toThrow(
      /file: URLs cannot be sent .* imageBlockFromBytes/,
    );
    expect(() => imageBlockFromUrl("cat.png")).toThrow(/"cat.png" is not a URL/);
  });

  it("turns blocks back into URLs", () => {
    expect(imageBlockToUrl(imageBlockFromBytes(PNG_1X1))).toBe(`data:image/png;base64,${PNG_B64}`);
    expect(imageBlockToUrl(imageBlockFromUrl("https://x/y.gif"))).toBe("https://x/y.gif");
  });
});
