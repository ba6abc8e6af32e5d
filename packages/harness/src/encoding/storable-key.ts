import { validationError } from "@tinyagents/inference";

// With the u flag a surrogate pair is one code point, so this matches lone surrogates only. Built
// once: every run checks its ids, and the bundle turns the literal into a `new RegExp` per call.
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Why `value` cannot be an id or key in every store, or undefined when it can. Every backend
 * stores ids as UTF-8 (file names, SQLite and Postgres text): a lone surrogate has no UTF-8 form
 * (drivers turn it into U+FFFD, so two distinct ids would share one record), and Postgres text
 * cannot hold NUL.
 */
export function unstorableReason(value: string): string | undefined {
  if (LONE_SURROGATE.test(value)) return "it is not well-formed Unicode (it holds a lone surrogate)";
  if (value.includes("\u0000")) return "it contains a NUL character";
  return undefined;
}

/**
 * Throw a `validation` error naming `field` unless `value` is a string every store can keep as
 * is (see {@link unstorableReason}). Emptiness and length are left to each store's own rules.
 */
export function assertStorableKey(value: unknown, field: string): asserts value is string {
  if (typeof value !== "string") throw validationError(`${field} must be a string`, { field });
  const why = unstorableReason(value);
  if (why !== undefined) {
    throw validationError(
      `${field} ${JSON.stringify(value)} cannot be stored: ${why}; ids and keys must be well-formed Unicode without NUL`,
      { field },
    );
  }
}
