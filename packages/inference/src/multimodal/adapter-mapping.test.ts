/**
 * The multimodal helpers' output goes through every adapter's image mapping unchanged: the
 * OpenAI `image_url` part, the Anthropic `image` source block and Ollama's `images` array all
 * carry exactly the bytes (and MIME type) the helper produced.
 */
import { describe, expect, it } from "vitest";
import { user } from "../message/constructors.js";
import { toAnthropicMessages } from "../providers/anthropic/map-messages.js";
import { toOllamaMessage } from "../providers/ollama/map-request.js";
import { mapMessages } from "../providers/openai/map-messages.js";
import { COMPATIBLE_QUIRKS } from "../providers/openai/quirks.js";
import { decodeBase64, encodeBase64 } from "./base64.js";
import { encodeDataUri } from "./data-uri.js";
import { JPEG_HEAD, PNG_1X1 } from "./fixtures.fixture.js";
import { imageBlockFromBytes, imageBlockFromDataUri, imageBlockFromUrl } from "./image-blocks.js";
import { resolveImageMarkers } from "./image-markers.js";

const PNG_B64 = encodeBase64(PNG_1X1);
const openaiContext = { provider: "openai", modelId: "gpt-4.1-mini", quirks: COMPATIBLE_QUIRKS };

describe("adapters accept what the multimodal helpers produce", () => {
  const fromBytes = imageBlockFromBytes(PNG_1X1, { detail: "high" });
  const fromUri = imageBlockFromDataUri(`data:image/png;base64,${PNG_B64.replace(/=+$/, "")}`);
  const fromUrl = imageBlockFromUrl("https://example.com/cat.jpg");

  it("OpenAI: image_url parts with a data: URI (or the URL) and the detail", () => {
    const [message] = mapMessages(
      [user([{ type: "text", text: "What is this?" }, fromBytes, fromUri, fromUrl])],
      openaiContext,
    );
    expect(message).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_B64}`, detail: "high" } },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_B64}` } },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
      ],
    });
  });

  it("Anthropic: image blocks with a base64 source (media_type from the bytes) or a url source", () => {
    const jpeg = imageBlockFromBytes(JPEG_HEAD);
    const mapped = toAnthropicMessages([
      user([fromBytes, jpeg, fromUrl, { type: "text", text: "Describe." }]),
    ]);
    expect(mapped.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_B64 } },
          {
            type: "image",
            source: { type: "base64", media_type: "image/jpeg", data: encodeBase64(JPEG_HEAD) },
          },
          { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
          { type: "text", text: "Describe." },
        ],
      },
    ]);
    // a data: URL given as a url source is unpacked by the adapter too
    const viaUrl = toAnthropicMessages([
      user([{ type: "image", source: { kind: "url", url: encodeDataUri(PNG_1X1, "image/png") } }]),
    ]);
    expect(viaUrl.messages[0]?.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_B64 } },
    ]);
  });

  it("Ollama: bare base64 in images (decoding back to the same bytes); URLs are refused clearly", () => {
    const message = toOllamaMessage(user([{ type: "text", text: "What is this?" }, fromBytes, fromUri]), 0);
    expect(message).toEqual({ role: "user", content: "What is this?", images: [PNG_B64, PNG_B64] });
    expect(decodeBase64(message.images![0]!)).toEqual(PNG_1X1);
    expect(() => toOllamaMessage(user([fromUrl]), 3)).toThrow(
      /messages\[3\]\.content\[0\]: Ollama accepts only inline base64 images/,
    );
  });

  it("[IMAGE:ref] markers resolve into content every adapter maps", async () => {
    const content = await resolveImageMarkers(
      `Compare [IMAGE:${encodeDataUri(PNG_1X1, "image/png")}] please`,
    );
    const message = user(content);
    expect(mapMessages([message], openaiContext)[0]?.content).toHaveLength(3);
    expect(toAnthropicMessages([message]).messages[0]?.content).toHaveLength(3);
    expect(toOllamaMessage(message, 0)).toEqual({
      role: "user",
      content: "Compare \n please",
      images: [PNG_B64],
    });
  });
});
