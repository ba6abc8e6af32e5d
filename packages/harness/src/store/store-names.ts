import { validationError } from "@tinyagents/inference";
import { assertStorableKey, unstorableReason } from "../encoding/storable-key.js";
import { utf8ByteLength } from "../encoding/utf8.js";

/** Longest name (in UTF-8 bytes) a file-backed store accepts; file systems cap names at 255. */
const MAX_NAME_BYTES = 200;

/**
 * Validate a namespace, key or stream name that a file-backed store turns into a file name.
 * Rejects: non-strings, empty names, path separators (`/`, `\`), NUL and other control
 * characters, names starting with a dot (`.`, `..`, hidden files), and names over 200 bytes.
 * Throws a `validation` TinyAgentsError naming the field and saying how to fix it.
 */
export function validateStoreName(name: unknown, field: string): asserts name is string {
  const fail = (why: string) =>
    validationError(
      `${field} ${JSON.stringify(name)} is not a safe store name: ${why}; ` +
        "use encodeStoreName() to turn arbitrary ids into safe names",
      { field },
    );
  if (typeof name !== "string") throw fail("it must be a string");
  if (name === "") throw fail("it is empty");
  if (name.startsWith(".")) throw fail("it starts with a dot");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
  if (/[/\\\u0000-\u001f\u007f]/.test(name)) throw fail("it contains a path separator or control character");
  const unstorable = unstorableReason(name);
  if (unstorable !== undefined) throw fail(unstorable);
  if (utf8ByteLength(name) > MAX_NAME_BYTES) throw fail(`it is longer than ${MAX_NAME_BYTES} bytes`);
}

/**
 * Turn any non-empty string (a run id, a thread id) into a name every store accepts, reversibly:
 * `encodeURIComponent`, plus a leading dot escaped as `%2E`. Decode with {@link decodeStoreName}.
 * A string that is not well-formed Unicode (or holds NUL) is a `validation` error: it has no
 * lossless UTF-8 form.
 */
export function encodeStoreName(value: string): string {
  assertStorableKey(value, "name");
  const encoded = encodeURIComponent(value);
  return encoded.startsWith(".") ? `%2E${encoded.slice(1)}` : encoded;
}

/** The inverse of {@link encodeStoreName}. */
export function decodeStoreName(name: string): string {
  return decodeURIComponent(name);
}
