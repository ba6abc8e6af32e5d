import { validationError } from "../errors/tinyagents-error.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Sextet value of each character code (`-1` for characters outside both alphabets). */
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) VALUES[ALPHABET.charCodeAt(i)] = i;
VALUES["-".charCodeAt(0)] = 62;
VALUES["_".charCodeAt(0)] = 63;
/** Character code of each sextet. */
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ASCII = new TextDecoder("ascii");

/** Standard base64 (`+/`, `=` padding) of `bytes`. Works everywhere (no `Buffer`). */
export function encodeBase64(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  const full = bytes.length - (bytes.length % 3);
  for (let i = 0; i < full; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    out[o++] = CODES[(n >> 6) & 63]!;
    out[o++] = CODES[n & 63]!;
  }
  const rest = bytes.length - full;
  if (rest > 0) {
    const n = (bytes[full]! << 16) | (rest === 2 ? bytes[full + 1]! << 8 : 0);
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    out[o++] = rest === 2 ? CODES[(n >> 6) & 63]! : 61;
    out[o++] = 61;
  }
  return ASCII.decode(out);
}

/**
 * The number of bytes `text` decodes to, after validating it exactly as {@link decodeBase64}
 * does (so a size limit can be checked before decoding a huge payload).
 */
export function base64ByteLength(text: string, what = "base64 data"): number {
  const { length } = inspect(text, what);
  return length;
}

/**
 * Decode base64 text, strictly but tolerantly of what real payloads contain: whitespace and line
 * breaks are ignored; the standard (`+/`) and URL-safe (`-_`) alphabets are accepted; `=`
 * padding is optional, but when present it must be complete (length a multiple of 4) and only
 * at the end. Anything else is a `validation` error that says what is wrong and where
 * (`what` names the payload in the message, for example "the data URI's payload").
 */
export function decodeBase64(text: string, what = "base64 data"): Uint8Array {
  const { clean, length } = inspect(text, what);
  const out = new Uint8Array(length);
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const code = clean.charCodeAt(i);
    if (code === 61 /* = */) break;
    buffer = (buffer << 6) | VALUES[code]!;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}

function inspect(text: string, what: string): { clean: string; length: number } {
  if (typeof text !== "string") throw validationError(`${what} must be a base64 string, got ${typeof text}`);
  const clean = /[\s]/.test(text) ? text.replace(/\s+/g, "") : text;
  let end = clean.length;
  while (end > 0 && clean.charCodeAt(end - 1) === 61) end--;
  const padding = clean.length - end;
  for (let i = 0; i < end; i++) {
    const code = clean.charCodeAt(i);
    if (code >= 128 || VALUES[code] === -1) {
      const shown = code === 61 ? "'=' (padding is only allowed at the end)" : JSON.stringify(clean[i]);
      throw validationError(`${what} is not valid base64: unexpected ${shown} at position ${i}`, {
        field: "base64",
        position: i,
      });
    }
  }
  const rest = end % 4;
  if (rest === 1) {
    throw validationError(
      `${what} is not valid base64: ${end} characters cannot encode whole bytes (the data looks truncated)`,
      { field: "base64" },
    );
  }
  if (padding > 0 && (padding > 2 || (end + padding) % 4 !== 0)) {
    throw validationError(
      `${what} is not valid base64: ${padding} '=' padding character(s) after ${end} characters; padding must bring the length to a multiple of 4`,
      { field: "base64" },
    );
  }
  return { clean, length: Math.floor((end * 3) / 4) };
}
