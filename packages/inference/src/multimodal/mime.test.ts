import { describe, expect, it } from "vitest";
import { GIF_HEAD, JPEG_HEAD, PDF_HEAD, PNG_1X1, WEBP_HEAD } from "./fixtures.fixture.js";
import { detectMimeType, normalizeMimeType } from "./mime.js";

const ascii = (text: string) => new TextEncoder().encode(text);

describe("detectMimeType", () => {
  it.each([
    ["image/png", PNG_1X1],
    ["image/jpeg", JPEG_HEAD],
    ["image/gif", GIF_HEAD],
    ["image/webp", WEBP_HEAD],
    ["application/pdf", PDF_HEAD],
    ["image/tiff", Uint8Array.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0])],
    ["image/avif", Uint8Array.from([0, 0, 0, 0x1c, ...ascii("ftypavif")])],
    ["image/heic", Uint8Array.from([0, 0, 0, 0x18, ...ascii("ftypheic")])],
  ])("recognises %s", (mime, bytes) => {
    expect(detectMimeType(bytes)).toBe(mime);
  });

  it("says undefined for anything else, including truncated signatures and text", () => {
    for (const bytes of [
      Uint8Array.from([]),
      PNG_1X1.subarray(0, 7),
      ascii("RIFF\0\0\0\0WAVE"),
      ascii("GIF90a"),
      ascii("BMW is a car, not a bitmap"),
      ascii("<svg xmlns='http://www.w3.org/2000/svg'/>"),
    ]) {
      expect(detectMimeType(bytes)).toBeUndefined();
    }
  });

  it("normalizes declared types", () => {
    expect(normalizeMimeType(" Image/JPG; q=1")).toBe("image/jpeg");
    expect(normalizeMimeType("image/PNG")).toBe("image/png");
  });
});
