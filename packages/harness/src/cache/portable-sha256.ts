// The portable SHA-256 (FIPS 180-4) for runtimes without node:crypto (browsers, edge workers).
// In-tree rather than @noble/hashes: the harness needs one hash with a forkable running state,
// and that package installed 1.16 MB (every hash, CJS and ESM copies, sources, maps) into every
// user's node_modules for ~90 lines used only off Node.

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const INITIAL = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];
const W = new Uint32Array(64);

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** One 64-byte block of `bytes` at `offset` into `state`. */
function compress(state: Uint32Array, bytes: Uint8Array, offset: number): void {
  // Typed-array reads are in bounds by construction; `as number` answers noUncheckedIndexedAccess.
  const byte = (i: number) => bytes[offset + i] as number;
  for (let i = 0; i < 16; i++) {
    W[i] = (byte(i * 4) << 24) | (byte(i * 4 + 1) << 16) | (byte(i * 4 + 2) << 8) | byte(i * 4 + 3);
  }
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15] as number;
    const b = W[i - 2] as number;
    const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
    const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
    W[i] = ((W[i - 16] as number) + s0 + (W[i - 7] as number) + s1) | 0;
  }
  const v = Array.from(state);
  let [a, b, c, d, e, f, g, h] = v as [number, number, number, number, number, number, number, number];
  for (let i = 0; i < 64; i++) {
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ch + (K[i] as number) + (W[i] as number)) | 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  const out = [a, b, c, d, e, f, g, h];
  for (let i = 0; i < 8; i++) state[i] = (state[i] as number) + (out[i] as number);
}

/** A running SHA-256 over bytes: `update`, `clone` (an independent copy), `digest` (ends it). */
export class PortableSha256State {
  private readonly state: Uint32Array;
  private readonly pending: Uint8Array;
  private pendingLength: number;
  private length: number;

  constructor(from?: PortableSha256State) {
    this.state = from === undefined ? new Uint32Array(INITIAL) : from.state.slice();
    this.pending = from === undefined ? new Uint8Array(64) : from.pending.slice();
    this.pendingLength = from?.pendingLength ?? 0;
    this.length = from?.length ?? 0;
  }

  update(bytes: Uint8Array): this {
    let offset = 0;
    this.length += bytes.length;
    if (this.pendingLength > 0) {
      const take = Math.min(64 - this.pendingLength, bytes.length);
      this.pending.set(bytes.subarray(0, take), this.pendingLength);
      this.pendingLength += take;
      offset = take;
      if (this.pendingLength < 64) return this;
      compress(this.state, this.pending, 0);
      this.pendingLength = 0;
    }
    for (; offset + 64 <= bytes.length; offset += 64) compress(this.state, bytes, offset);
    this.pending.set(bytes.subarray(offset), 0);
    this.pendingLength = bytes.length - offset;
    return this;
  }

  clone(): PortableSha256State {
    return new PortableSha256State(this);
  }

  /** The 32-byte digest; the state is consumed (clone first to go on). */
  digest(): Uint8Array {
    const bits = this.length * 8;
    const tail = new Uint8Array(this.pendingLength < 56 ? 64 : 128);
    tail.set(this.pending.subarray(0, this.pendingLength));
    tail[this.pendingLength] = 0x80;
    const view = new DataView(tail.buffer);
    view.setUint32(tail.length - 8, Math.floor(bits / 0x100000000));
    view.setUint32(tail.length - 4, bits >>> 0);
    for (let offset = 0; offset < tail.length; offset += 64) compress(this.state, tail, offset);
    const out = new Uint8Array(32);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) outView.setUint32(i * 4, this.state[i] as number);
    return out;
  }
}
