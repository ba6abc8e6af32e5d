// Base64 of bytes without Node's Buffer, so the harness root runs in browsers and edge runtimes.
// Node's Buffer is used where it exists (native).

interface BufferLike {
  from(data: Uint8Array): { toString(encoding: "base64"): string };
  from(data: string, encoding: "base64"): Uint8Array;
}
const nodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** Standard base64 (with padding) of `bytes`. */
export function bytesToBase64(bytes: Uint8Array): string {
  return nodeBuffer === undefined ? portableBytesToBase64(bytes) : nodeBuffer.from(bytes).toString("base64");
}

/** The bytes of standard base64 `text`. */
export function base64ToBytes(text: string): Uint8Array {
  return nodeBuffer === undefined
    ? portableBase64ToBytes(text)
    : new Uint8Array(nodeBuffer.from(text, "base64"));
}

/** {@link bytesToBase64} with the web-standard `btoa` (chunked: no argument-count limit). */
export function portableBytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** {@link base64ToBytes} with the web-standard `atob`. */
export function portableBase64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
