/**
 * Vitest setup file: every fast-check property in the suite runs with ONE fixed seed, so a run
 * is reproducible on any machine and in CI. A failing property throws fast-check's report, which
 * Vitest prints: `Property failed after N tests { seed: S, path: "...", endOnFailure: true }`,
 * the shrunk counterexample and the error it produced. Replay it with
 * `FC_SEED=S npx vitest run <file>` (and `path` via `fc.assert(prop, { path })` if needed).
 *
 * - `FC_SEED` (integer): the seed (default {@link DEFAULT_SEED});
 * - `FC_NUM_RUNS` (integer): runs per property (default 100; soak a property locally with 10000).
 */
import fc from "fast-check";

/** The suite's seed when `FC_SEED` is not set. */
export const DEFAULT_SEED = 20_250_611;

function integerFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return value;
}

fc.configureGlobal({
  seed: integerFromEnv("FC_SEED", DEFAULT_SEED),
  numRuns: integerFromEnv("FC_NUM_RUNS", 100),
});
