/** Tiny but real image files (and look-alikes) for multimodal tests. */

/** A 1x1 transparent PNG. */
export const PNG_1X1 = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64",
  ),
);
/** The start of a JPEG (SOI + APP0 JFIF). */
export const JPEG_HEAD = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
/** A GIF89a header. */
export const GIF_HEAD = new TextEncoder().encode("GIF89a\x01\x00\x01\x00");
/** A WebP RIFF header. */
export const WEBP_HEAD = Uint8Array.from([
  ...new TextEncoder().encode("RIFF"),
  0x24,
  0,
  0,
  0,
  ...new TextEncoder().encode("WEBPVP8 "),
]);
/** A PDF header. */
export const PDF_HEAD = new TextEncoder().encode("%PDF-1.7\n");
