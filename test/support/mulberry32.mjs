// The seeded PRNG of every test and test child process (plain JavaScript, so the workers that
// crash suites spawn import it too; tests import it through seeded-random.ts).

/**
 * A seeded PRNG (mulberry32): the same sequence of numbers in [0, 1) for the same seed, on every
 * machine. Not for anything but tests.
 * @param {number} seed
 * @returns {() => number}
 */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A 32-bit seed from a text (FNV-1a): a child process derives its own seed from the suite's seed
 * and what makes it distinct (`${seed}:${runId}:${ownerId}`), so each spawn replays.
 * @param {string} text
 * @returns {number}
 */
export function seedFrom(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
