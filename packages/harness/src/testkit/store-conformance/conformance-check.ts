import { type ErrorCode, TinyAgentsError } from "@tinyagents/inference";

/** One named check of a conformance suite; run it with any test runner: `it(c.name, c.run)`. */
export interface ConformanceCase {
  name: string;
  run: () => Promise<void>;
}

/** Thrown by a conformance case whose store broke the contract; the message says what differed. */
export class ConformanceFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConformanceFailure";
  }
}

/** Structural equality of JSON-like values (object key order ignored; `undefined` only equals itself). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

const show = (value: unknown) => (value === undefined ? "undefined" : JSON.stringify(value));

/** Fail unless `actual` deep-equals `expected`. */
export function equal(actual: unknown, expected: unknown, what: string): void {
  if (!deepEqual(actual, expected)) {
    throw new ConformanceFailure(`${what}: expected ${show(expected)}, got ${show(actual)}`);
  }
}

/** Fail unless every field of `expected` deep-equals the same field of `actual`. */
export function matches(actual: unknown, expected: Record<string, unknown>, what: string): void {
  const record = (actual ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected)) equal(record[key], value, `${what} (.${key})`);
}

/** Fail unless `condition` holds. */
export function ok(condition: boolean, what: string): void {
  if (!condition) throw new ConformanceFailure(what);
}

/** Await `work` and fail unless it rejects with a TinyAgentsError of `code` (and a message matching `pattern`). */
export async function rejects(
  work: () => Promise<unknown>,
  code: ErrorCode,
  what: string,
  pattern?: RegExp,
): Promise<TinyAgentsError> {
  let result: unknown;
  try {
    result = await work();
  } catch (error) {
    if (!TinyAgentsError.isInstance(error, code)) {
      throw new ConformanceFailure(`${what}: expected a "${code}" TinyAgentsError, got ${String(error)}`);
    }
    if (pattern !== undefined && !pattern.test(error.message)) {
      throw new ConformanceFailure(`${what}: the message "${error.message}" does not match ${pattern}`);
    }
    return error;
  }
  throw new ConformanceFailure(`${what}: expected a "${code}" error, but it resolved with ${show(result)}`);
}
