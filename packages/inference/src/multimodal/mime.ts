/** Image MIME types every built-in provider adapter accepts (OpenAI, Anthropic, Ollama). */
export const IMAGE_MIME_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

const ascii = (bytes: Uint8Array, at: number, text: string): boolean => {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};
const starts = (bytes: Uint8Array, ...prefix: number[]): boolean =>
  bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);

/**
 * The MIME type of a file from its first bytes ("magic numbers"), or `undefined` when the bytes
 * are none of: PNG, JPEG, GIF (87a/89a), WebP, PDF, BMP, TIFF, AVIF, HEIC/HEIF.
 * Never trusts a file name or a declared type.
 */
export function detectMimeType(bytes: Uint8Array): string | undefined {
  if (starts(bytes, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(bytes, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (ascii(bytes, 0, "GIF87a") || ascii(bytes, 0, "GIF89a")) return "image/gif";
  if (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WEBP")) return "image/webp";
  if (ascii(bytes, 0, "%PDF-")) return "application/pdf";
  if (
    ascii(bytes, 0, "BM") &&
    bytes.length >= 26 &&
    bytes[6] === 0 &&
    bytes[7] === 0 &&
    bytes[8] === 0 &&
    bytes[9] === 0
  ) {
    return "image/bmp";
  }
  if (starts(bytes, 0x49, 0x49, 0x2a, 0x00) || starts(bytes, 0x4d, 0x4d, 0x00, 0x2a)) return "image/tiff";
  if (ascii(bytes, 4, "ftyp")) {
    if (ascii(bytes, 8, "avif") || ascii(bytes, 8, "avis")) return "image/avif";
    if (["heic", "heix", "heim", "heis"].some((brand) => ascii(bytes, 8, brand))) return "image/heic";
    if (ascii(bytes, 8, "mif1") || ascii(bytes, 8, "msf1")) return "image/heif";
  }
  return undefined;
}

/** Lower-case a MIME type and drop parameters and spaces: `"Image/PNG; q=1"` -> `"image/png"`. */
export function normalizeMimeType(mimeType: string): string {
  const normalized = mimeType.split(";")[0]!.trim().toLowerCase();
  return normalized === "image/jpg" ? "image/jpeg" : normalized;
}
