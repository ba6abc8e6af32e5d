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

/** The promise every {@link afterThisTurn} caller of the current turn shares, until it settles. */
let thisTurnEnd: Promise<void> | undefined;

/**
 * A promise settled at the end of the current event-loop turn. Every caller of one turn gets the
 * same promise, settled by one `setImmediate`: a thousand runs in flight, each with a journal
 * queue and a status writer waiting for the turn's end, cost one timer and one promise per turn,
 * not two of each per run (and each run's writes join the turn's first group commit). A caller
 * after it settled (from its callbacks) waits for the next turn's end.
 */
export function afterThisTurn(): Promise<void> {
  if (thisTurnEnd === undefined) {
    thisTurnEnd = new Promise<void>((resolve) =>
      nextTurn(() => {
        thisTurnEnd = undefined;
        resolve();
      }),
    );
  }
  return thisTurnEnd;
}
