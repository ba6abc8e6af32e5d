import { validationError } from "../errors/tinyagents-error.js";
import { IMAGE_MIME_TYPES } from "./mime.js";

/** What an image (or file) may be before it is sent to a model. */
export interface MediaLimits {
  /** Largest decoded size in bytes. */
  maxBytes: number;
  /** MIME types accepted (lower case). */
  allowedMimeTypes: readonly string[];
}

/**
 * Defaults for images: at most 5 MiB (Anthropic's per-image API limit, the strictest of the
 * built-in providers; OpenAI takes 20 MB) and only the types every adapter accepts: PNG, JPEG,
 * GIF, WebP.
 */
export const DEFAULT_IMAGE_LIMITS: Readonly<MediaLimits> = Object.freeze({
  maxBytes: 5 * 1024 * 1024,
  allowedMimeTypes: IMAGE_MIME_TYPES,
});

/**
 * Throw a `validation` error unless `byteLength` and `mimeType` are within `limits`. The
 * message says the actual size or type, the limit, and what to do about it.
 */
export function checkMediaLimits(
  byteLength: number,
  mimeType: string,
  limits: MediaLimits = DEFAULT_IMAGE_LIMITS,
  what = "the image",
): void {
  if (!limits.allowedMimeTypes.includes(mimeType)) {
    throw validationError(
      `${what} is ${mimeType}, which is not accepted here (allowed: ${limits.allowedMimeTypes.join(", ")}); convert it or widen limits.allowedMimeTypes`,
      { field: "mimeType", mimeType },
    );
  }
  checkByteLimit(byteLength, limits.maxBytes, what);
  if (byteLength === 0) throw validationError(`${what} is empty (0 bytes)`, { field: "bytes" });
}

/** Throw a `validation` error when `byteLength` is over `maxBytes`, saying both and what to do. */
export function checkByteLimit(byteLength: number, maxBytes: number, what = "the image"): void {
  if (byteLength <= maxBytes) return;
  throw validationError(
    `${what} is ${formatBytes(byteLength)}, over the ${formatBytes(maxBytes)} limit; resize or compress it, or raise limits.maxBytes if the provider accepts more`,
    { field: "maxBytes", bytes: byteLength, maxBytes },
  );
}

/** `1536` -> `"1.5 KiB"`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}
