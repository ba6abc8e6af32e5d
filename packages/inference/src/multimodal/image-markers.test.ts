import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { encodeDataUri } from "./data-uri.js";
import { PNG_1X1 } from "./fixtures.fixture.js";
import { imageBlockFromBytes } from "./image-blocks.js";
import { hasImageMarkers, imageMarker, resolveImageMarkers, splitImageMarkers } from "./image-markers.js";

describe("[IMAGE:ref] markers", () => {
  it("builds and splits markers", () => {
    expect(imageMarker(" cat.png ")).toBe("[IMAGE:cat.png]");
    expect(() => imageMarker("a]b")).toThrow(/without "\]"/);
    expect(() => imageMarker("")).toThrow(/non-empty/);
    expect(splitImageMarkers("Compare [IMAGE:a.png] with [IMAGE: b.png ][IMAGE:] done")).toEqual([
      { type: "text", text: "Compare " },
      { type: "image", ref: "a.png" },
      { type: "text", text: " with " },
      { type: "image", ref: "b.png" },
      { type: "text", text: "[IMAGE:] done" },
    ]);
    expect(splitImageMarkers("plain")).toEqual([{ type: "text", text: "plain" }]);
    expect(hasImageMarkers("x [IMAGE:y]")).toBe(true);
    expect(hasImageMarkers("x [IMAGE:]")).toBe(false);
  });

  it("resolves markers into image blocks in place", async () => {
    const loaded: string[] = [];
    const blocks = await resolveImageMarkers("What is in [IMAGE:photo-1]?", async (ref) => {
      loaded.push(ref);
      return imageBlockFromBytes(PNG_1X1);
    });
    expect(loaded).toEqual(["photo-1"]);
    expect(blocks).toEqual([
      { type: "text", text: "What is in " },
      imageBlockFromBytes(PNG_1X1),
      { type: "text", text: "?" },
    ]);
  });

  it("resolves URLs and data URIs by default, and refuses other refs clearly", async () => {
    const uri = encodeDataUri(PNG_1X1, "image/png");
    const blocks = await resolveImageMarkers(`${imageMarker("https://x/a.jpg")} ${imageMarker(uri)}`);
    expect(blocks.map((b) => (b.type === "image" ? b.source.kind : b.type))).toEqual([
      "url",
      "text",
      "base64",
    ]);
    await expect(resolveImageMarkers("see [IMAGE:./cat.png]")).rejects.toThrow(
      /cannot resolve \[IMAGE:\.\/cat\.png\]: only http\(s\) URLs and data: URIs/,
    );
  });

  it("wraps resolver failures with the marker, and enforces maxImages", async () => {
    const error = await resolveImageMarkers("[IMAGE:missing]", () => {
      throw new Error("ENOENT: no such file");
    }).catch((caught: unknown) => caught);
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect((error as Error).message).toBe("could not resolve [IMAGE:missing]: ENOENT: no such file");
    await expect(
      resolveImageMarkers("[IMAGE:a][IMAGE:b]", () => imageBlockFromBytes(PNG_1X1), { maxImages: 1 }),
    ).rejects.toThrow(/2 \[IMAGE:...\] markers, more than the 1 allowed/);
    await expect(
      resolveImageMarkers("[IMAGE:a]", () => ({ type: "text", text: "no" }) as never),
    ).rejects.toThrow(/not an image block/);
  });
});
