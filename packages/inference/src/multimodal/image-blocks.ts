import { validationError } from "../errors/tinyagents-error.js";
import type { ImageBlock } from "../message/content-block.js";
import { base64ByteLength, decodeBase64, encodeBase64 } from "./base64.js";
import { decodeDataUri } from "./data-uri.js";
import { checkByteLimit, checkMediaLimits, DEFAULT_IMAGE_LIMITS, type MediaLimits } from "./media-limits.js";
import { detectMimeType, normalizeMimeType } from "./mime.js";

/** Options of the `imageBlockFrom...` helpers. */
export interface ImageBlockOptions {
  /** The type to use when the bytes are not recognised (recognised bytes always win). */
  mimeType?: string;
  /** Provider hint for how much detail to spend tokens on. */
  detail?: "auto" | "low" | "high";
  /** Size and type limits (default {@link DEFAULT_IMAGE_LIMITS}); fields given override the defaults. */
  limits?: Partial<MediaLimits>;
}

/**
 * An inline (base64) image block from raw bytes. The MIME type comes from the bytes themselves
 * (`detectMimeType`), falling back to `options.mimeType` only when they are not recognised —
 * providers check the real bytes, so a wrong declared type would be rejected there. Throws a
 * `validation` error when the type cannot be told, or the image breaks the limits (default: at
 * most 5 MiB, PNG/JPEG/GIF/WebP).
 */
export function imageBlockFromBytes(bytes: Uint8Array, options: ImageBlockOptions = {}): ImageBlock {
  if (!(bytes instanceof Uint8Array)) {
    throw validationError("imageBlockFromBytes: expected the image as a Uint8Array (a Buffer is one)", {
      field: "bytes",
    });
  }
  const limits = { ...DEFAULT_IMAGE_LIMITS, ...options.limits };
  const mimeType = mimeFor(bytes, options.mimeType);
  checkMediaLimits(bytes.length, mimeType, limits);
  return block({ kind: "base64", data: encodeBase64(bytes), mimeType }, options);
}

/**
 * An inline image block from a `data:` URI. The payload is validated and decoded (an oversized
 * payload is refused before decoding); the MIME type comes from the bytes when recognised, else
 * from the URI. The block carries canonical base64, so every adapter can use it.
 */
export function imageBlockFromDataUri(uri: string, options: ImageBlockOptions = {}): ImageBlock {
  const limits = { ...DEFAULT_IMAGE_LIMITS, ...options.limits };
  const decoded = decodeDataUri(uri, { maxBytes: limits.maxBytes });
  return imageBlockFromBytes(decoded.bytes, { ...options, mimeType: options.mimeType ?? decoded.mimeType });
}

/**
 * An inline image block from base64 text and its MIME type (validated like
 * {@link imageBlockFromBytes}; whitespace, URL-safe characters and missing padding are fine).
 */
export function imageBlockFromBase64(
  data: string,
  mimeType: string,
  options: ImageBlockOptions = {},
): ImageBlock {
  const limits = { ...DEFAULT_IMAGE_LIMITS, ...options.limits };
  const what = "the image's base64 data";
  checkByteLimit(base64ByteLength(data, what), limits.maxBytes, "the image");
  return imageBlockFromBytes(decodeBase64(data, what), { ...options, mimeType });
}

/**
 * An image block referring to a URL. `http(s)` URLs are kept as URLs (the provider fetches them;
 * Ollama cannot, and its adapter says so); a `data:` URI is decoded into an inline block (see
 * {@link imageBlockFromDataUri}). Other schemes (`file:`, `ftp:`, ...) are a `validation` error:
 * read the file yourself and use {@link imageBlockFromBytes}.
 */
export function imageBlockFromUrl(url: string, options: ImageBlockOptions = {}): ImageBlock {
  const text = typeof url === "string" ? url.trim() : "";
  if (/^data:/i.test(text)) return imageBlockFromDataUri(text, options);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw validationError(`imageBlockFromUrl: ${JSON.stringify(text.slice(0, 80))} is not a URL`, {
      field: "url",
    });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw validationError(
      `imageBlockFromUrl: ${parsed.protocol} URLs cannot be sent to a model; read the file and use imageBlockFromBytes`,
      { field: "url" },
    );
  }
  return block({ kind: "url", url: text }, options);
}

/** The image as a URL a provider accepts: its URL, or a `data:<mime>;base64,...` URI for inline bytes. */
export function imageBlockToUrl(image: ImageBlock): string {
  const { source } = image;
  return source.kind === "url" ? source.url : `data:${source.mimeType};base64,${source.data}`;
}

function mimeFor(bytes: Uint8Array, declared: string | undefined): string {
  const detected = detectMimeType(bytes);
  if (detected !== undefined) return detected;
  if (declared !== undefined && declared.trim() !== "") return normalizeMimeType(declared);
  throw validationError(
    "could not tell the image type from its bytes (they are not PNG, JPEG, GIF or WebP); pass { mimeType } if you are sure of it",
    { field: "mimeType" },
  );
}

function block(source: ImageBlock["source"], options: ImageBlockOptions): ImageBlock {
  const out: ImageBlock = { type: "image", source };
  if (options.detail !== undefined) out.detail = options.detail;
  return out;
}
