/**
 * Deterministic hex ids for OTLP (`traceId`: 32 hex chars, `spanId`: 16), derived from stable
 * names such as the root run id and an observation key. Exporting the same run twice yields the
 * same ids, so a re-send updates the trace in Langfuse instead of duplicating it.
 *
 * Not cryptographic: FNV-1a over the UTF-16 code units with a per-word seed, finished with the
 * murmur3 mixer. Never all zeros (an invalid id in OTLP).
 */
export function stableHexId(name: string, hexChars: 16 | 32): string {
  let out = "";
  for (let word = 0; word < hexChars / 8; word++) out += hashWord(name, word).toString(16).padStart(8, "0");
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

/** The OTLP trace id of a root run. */
export function otlpTraceId(rootRunId: string): string {
  return stableHexId(`trace\u0000${rootRunId}`, 32);
}

/** The OTLP span id of an observation (`key`) in the trace of `rootRunId`. */
export function otlpSpanId(rootRunId: string, key: string): string {
  return stableHexId(`span\u0000${rootRunId}\u0000${key}`, 16);
}

function hashWord(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ Math.imul(seed + 1, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
