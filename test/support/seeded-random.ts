/**
 * Seeded randomness for tests, one place for every package: crash suites draw their kill instants,
 * race suites their arrival times and generators their inputs from `seededRandom`, so a
 * failing schedule can be replayed exactly.
 *
 * - {@link testSeed}: the seed a test uses — `TINYAGENTS_TEST_SEED` when set (an integer), else the
 *   suite's fixed default — and, called inside a test, prints it when that test fails:
 *   `rerun with TINYAGENTS_TEST_SEED=<seed> npx vitest run <file>`.
 * - `seededRandom(seed)`: mulberry32, a small PRNG with uniform output in [0, 1); `seedFrom(text)`:
 *   a 32-bit seed from a text. Both live in `mulberry32.mjs`, which the crash suites' child
 *   processes import too (their jitter replays with the schedule).
 */
import { onTestFailed } from "vitest";

export { seededRandom, seedFrom } from "./mulberry32.mjs";

/** The environment variable that replaces every suite's default seed. */
export const TEST_SEED_ENV = "TINYAGENTS_TEST_SEED";

/**
 * The seed of the current test: `TINYAGENTS_TEST_SEED` when set, else `fallback` (the suite's
 * fixed seed, so the schedule is the same on every run). Call it inside the test (not at module
 * level): it registers a failure hook that prints the seed and how to replay it.
 * Throws when the variable is set to something that is not an integer.
 */
export function testSeed(fallback: number): number {
  const raw = process.env[TEST_SEED_ENV];
  let seed = fallback;
  if (raw !== undefined && raw.trim() !== "") {
    seed = Number(raw);
    if (!Number.isInteger(seed))
      throw new Error(`${TEST_SEED_ENV} must be an integer, got ${JSON.stringify(raw)}`);
  }
  onTestFailed(({ task }) => {
    console.error(
      `${task.name}: random schedule seed ${seed}; rerun with ${TEST_SEED_ENV}=${seed} npx vitest run ${task.file.name}`,
    );
  });
  return seed;
}
