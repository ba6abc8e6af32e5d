/**
 * Run `fn` at the end of the current event-loop turn — the group-commit boundary of the queued
 * writers: `setImmediate` on Node (after this turn's I/O callbacks), a zero-delay timer where
 * there is none (browsers, workers; the harness root stays free of Node globals).
 */
export const nextTurn: (fn: () => void) => void =
  typeof globalThis.setImmediate === "function"
    ? (fn) => {
        globalThis.setImmediate(fn);
      }
    : (fn) => {
        setTimeout(fn, 0);
      };

/** A promise settled at the end of the current event-loop turn. */
export function afterThisTurn(): Promise<void> {
  return new Promise<void>((resolve) => nextTurn(resolve));
}
