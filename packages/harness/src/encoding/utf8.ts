// Byte lengths of UTF-8 text without Node's Buffer, so the harness root runs in browsers and edge
// runtimes. Node's Buffer is used where it exists (native, no allocation).

interface BufferLike {
  byteLength(text: string, encoding: "utf8"): number;
}
const nodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** The UTF-8 byte length of `text` (a lone surrogate counts 3 bytes, as U+FFFD). */
export function utf8ByteLength(text: string): number {
  return nodeBuffer === undefined ? portableUtf8ByteLength(text) : nodeBuffer.byteLength(text, "utf8");
}

/** {@link utf8ByteLength} in plain JavaScript: one pass over the UTF-16 code units, no allocation. */
export function portableUtf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
