/** A seeded PRNG (mulberry32): the same sequence of numbers in [0, 1) for the same seed. */
export declare function seededRandom(seed: number): () => number;
/** A 32-bit seed from a text (FNV-1a), for a child process's own seed. */
export declare function seedFrom(text: string): number;
