import { PortableSha256State } from "./portable-sha256.js";

/** A running SHA-256 over UTF-8 text: feed it, fork it, read the digest without ending it. */
export interface Sha256 {
  update(text: string): Sha256;
  /** An independent copy of the running state (O(1) in the input hashed so far). */
  copy(): Sha256;
  /** The digest of everything fed so far, as 64 lowercase hex characters; the hash goes on. */
  hex(): string;
}

interface NodeHash {
  update(data: string): NodeHash;
  copy(): NodeHash;
  digest(encoding: "hex"): string;
}

/**
 * Node's native SHA-256, when the runtime has it (Node >= 20.16, Bun, Deno expose
 * `process.getBuiltinModule`). It is about 5x faster than the portable one on KB-sized prompts.
 * Reached at run time rather than by `import "node:crypto"`, so the harness root has no static
 * `node:` import and bundles for browsers and edge runtimes, which use the portable SHA-256
 * (./portable-sha256.ts; Web Crypto's `subtle.digest` is asynchronous and cannot fork a running hash).
 * Looked up on the first hash, not at import: loading `node:crypto` was ~7% of `import
 * "@tinyagents/harness"`, and most programs hash nothing until their first model call.
 */
let nodeCreateHashResolved = false;
let nodeCreateHashCached: ((algorithm: "sha256") => NodeHash) | undefined;

function nodeCreateHash(): ((algorithm: "sha256") => NodeHash) | undefined {
  if (nodeCreateHashResolved) return nodeCreateHashCached;
  nodeCreateHashResolved = true;
  const host = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } };
  try {
    const crypto = host.process?.getBuiltinModule?.("node:crypto") as
      | { createHash?: (algorithm: "sha256") => NodeHash }
      | undefined;
    nodeCreateHashCached = crypto?.createHash;
  } catch {
    nodeCreateHashCached = undefined;
  }
  return nodeCreateHashCached;
}

class NativeSha256 implements Sha256 {
  constructor(private readonly hash: NodeHash) {}
  update(text: string): Sha256 {
    this.hash.update(text);
    return this;
  }
  copy(): Sha256 {
    return new NativeSha256(this.hash.copy());
  }
  hex(): string {
    return this.hash.copy().digest("hex");
  }
}

const encoder = new TextEncoder();

class PortableSha256 implements Sha256 {
  constructor(private readonly hash: PortableSha256State) {}
  update(text: string): Sha256 {
    this.hash.update(encoder.encode(text));
    return this;
  }
  copy(): Sha256 {
    return new PortableSha256(this.hash.clone());
  }
  hex(): string {
    return toHex(this.hash.clone().digest());
  }
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

/** A new running SHA-256: native where the runtime has one, portable elsewhere. */
export function createSha256(options: { portable?: boolean } = {}): Sha256 {
  const createHash = options.portable === true ? undefined : nodeCreateHash();
  if (createHash !== undefined) return new NativeSha256(createHash("sha256"));
  return new PortableSha256(new PortableSha256State());
}

/** SHA-256 of `text` (UTF-8), as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  const createHash = nodeCreateHash();
  if (createHash !== undefined) return createHash("sha256").update(text).digest("hex");
  return toHex(new PortableSha256State().update(encoder.encode(text)).digest());
}
