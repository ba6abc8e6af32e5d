/**
 * How to cut a body into separate writes:
 * - `"whole"`: one write;
 * - `"frames"`: one write per SSE frame / NDJSON line (split after each `\n\n`, else after each `\n`);
 * - `"awkward"`: every frame is cut again at hostile places — after its first byte, inside the
 *   `data:` prefix, between `\r` and `\n`, in the middle, before its last byte, and between the
 *   bytes of every multi-byte UTF-8 character;
 * - `{ every: n }`: fixed n-byte writes; `{ sizes: [...] }`: these sizes, cycled.
 */
export type Chunking = "whole" | "frames" | "awkward" | { every: number } | { sizes: readonly number[] };

/** Cut `body` according to `chunking`. The parts concatenate back to `body` exactly. */
export function splitBody(body: Uint8Array, chunking: Chunking): Uint8Array[] {
  if (body.length === 0) return [];
  if (chunking === "whole") return [body];
  if (chunking === "frames") return frames(body);
  if (chunking === "awkward") return frames(body).flatMap(awkward);
  const sizes = "every" in chunking ? [chunking.every] : chunking.sizes;
  if (sizes.length === 0 || sizes.some((size) => !(size > 0))) throw new Error("chunk sizes must be > 0");
  const out: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; offset < body.length; i++) {
    const size = sizes[i % sizes.length]!;
    out.push(body.subarray(offset, offset + size));
    offset += size;
  }
  return out;
}

function frames(body: Uint8Array): Uint8Array[] {
  const text = Buffer.from(body).toString("latin1");
  const separator = text.includes("\n\n") || text.includes("\r\n\r\n") ? /\r?\n\r?\n/g : /\n/g;
  const out: Uint8Array[] = [];
  let start = 0;
  for (const match of text.matchAll(separator)) {
    const end = match.index + match[0].length;
    out.push(body.subarray(start, end));
    start = end;
  }
  if (start < body.length) out.push(body.subarray(start));
  return out;
}

function awkward(frame: Uint8Array): Uint8Array[] {
  const cuts = new Set<number>([1, 3, Math.floor(frame.length / 2), frame.length - 1]);
  for (let i = 1; i < frame.length; i++) {
    const byte = frame[i]!;
    if ((byte & 0xc0) === 0x80) cuts.add(i); // a UTF-8 continuation byte: cut before it
    if (byte === 0x0a && frame[i - 1] === 0x0d) cuts.add(i); // between \r and \n
  }
  const sorted = [...cuts].filter((cut) => cut > 0 && cut < frame.length).sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const cut of sorted) {
    out.push(frame.subarray(start, cut));
    start = cut;
  }
  out.push(frame.subarray(start));
  return out;
}
