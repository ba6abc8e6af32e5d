const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;

/**
 * Map any tool call id to a Mistral-acceptable one (exactly 9 ASCII letters/digits).
 * Ids that already fit are kept; others are hashed deterministically (FNV-1a, 64-bit, base 62),
 * so an assistant turn's call id and the tool message answering it map to the same value.
 */
export function toMistralToolCallId(id: string): string {
  if (MISTRAL_ID.test(id)) return id;
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < id.length; i++) {
    hash ^= BigInt(id.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  let out = "";
  for (let i = 0; i < 9; i++) {
    out += ALPHANUMERIC[Number(hash % 62n)];
    hash /= 62n;
    if (hash === 0n) hash = 0x9e3779b97f4a7c15n ^ BigInt(i + id.length);
  }
  return out;
}

/** A random id generator: `call_` + 24 letters/digits, or 9 letters/digits for Mistral. */
export function randomToolCallId(style: "any" | "mistral9" = "any"): string {
  const length = style === "mistral9" ? 9 : 24;
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  let out = "";
  for (const byte of bytes) out += ALPHANUMERIC[byte % 62];
  return style === "mistral9" ? out : `call_${out}`;
}
