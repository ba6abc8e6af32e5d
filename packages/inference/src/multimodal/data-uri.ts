import { validationError } from "../errors/tinyagents-error.js";
import { base64ByteLength, decodeBase64, encodeBase64 } from "./base64.js";
import { checkByteLimit } from "./media-limits.js";
import { normalizeMimeType } from "./mime.js";

/** The parts of a `data:` URI, payload not decoded. */
export interface DataUri {
  /** Normalized MIME type (`text/plain` when the URI names none). */
  mimeType: string;
  /** Parameters such as `charset` (names lower-cased). */
  parameters: Record<string, string>;
  /** Whether the payload is base64 (`;base64`); otherwise it is percent-encoded. */
  base64: boolean;
  /** The payload exactly as written after the comma. */
  data: string;
}

/** A decoded `data:` URI. */
export interface DecodedDataUri {
  mimeType: string;
  bytes: Uint8Array;
}

/**
 * Split a `data:[<mime>][;param=value]*[;base64],<data>` URI into its parts (RFC 2397).
 * Throws a `validation` error naming the problem for anything that is not such a URI.
 */
export function parseDataUri(uri: string): DataUri {
  const text = typeof uri === "string" ? uri.trim() : "";
  if (!/^data:/i.test(text)) {
    const shown = typeof uri === "string" ? JSON.stringify(uri.slice(0, 40)) : typeof uri;
    throw validationError(`expected a data: URI (data:<mime>;base64,<data>), got ${shown}`, { field: "uri" });
  }
  const comma = text.indexOf(",");
  if (comma === -1) {
    throw validationError(
      "the data: URI has no ',' between its header and its data (data:<mime>;base64,<data>)",
      {
        field: "uri",
      },
    );
  }
  const params = text.slice(5, comma).split(";");
  const base64 = params.length > 1 && params[params.length - 1]!.trim().toLowerCase() === "base64";
  if (base64) params.pop();
  const parameters: Record<string, string> = {};
  for (const param of params.slice(1)) {
    const eq = param.indexOf("=");
    if (eq > 0) parameters[param.slice(0, eq).trim().toLowerCase()] = param.slice(eq + 1).trim();
  }
  const declared = params[0]?.trim() ?? "";
  return {
    mimeType: declared === "" ? "text/plain" : normalizeMimeType(declared),
    parameters,
    base64,
    data: text.slice(comma + 1),
  };
}

/**
 * Decode a `data:` URI to bytes: base64 payloads strictly (see `decodeBase64`), others
 * percent-decoded. With `maxBytes`, an oversized base64 payload is refused BEFORE it is decoded.
 */
export function decodeDataUri(uri: string, options: { maxBytes?: number } = {}): DecodedDataUri {
  const parsed = parseDataUri(uri);
  const what = `the data: URI's ${parsed.mimeType} payload`;
  if (parsed.base64 && options.maxBytes !== undefined) {
    checkByteLimit(base64ByteLength(parsed.data, what), options.maxBytes, what);
  }
  const bytes = parsed.base64 ? decodeBase64(parsed.data, what) : percentDecode(parsed.data, what);
  return { mimeType: parsed.mimeType, bytes };
}

/** `data:<mimeType>;base64,<standard base64 of bytes>`. */
export function encodeDataUri(bytes: Uint8Array, mimeType: string): string {
  return `data:${normalizeMimeType(mimeType)};base64,${encodeBase64(bytes)}`;
}

function percentDecode(data: string, what: string): Uint8Array {
  const encoder = new TextEncoder();
  const out: number[] = [];
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === "%") {
      const hex = data.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) {
        throw validationError(`${what} has a broken percent-escape at position ${i} ("%${hex}")`, {
          field: "uri",
        });
      }
      out.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      const code = data.codePointAt(i)!;
      const char = String.fromCodePoint(code);
      for (const byte of encoder.encode(char)) out.push(byte);
      i += char.length - 1;
    }
  }
  return Uint8Array.from(out);
}
