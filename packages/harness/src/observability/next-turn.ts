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
 * after it settled (from its callbacks) waits for the next turn's end. The writers it wakes hand
 * their batches to a store whose group commit then runs in the same turn (see
 * {@link commitAtTurnEnd}).
 */
export function afterThisTurn(): Promise<void> {
  if (thisTurnEnd === undefined) {
    thisTurnEnd = new Promise<void>((resolve) =>
      nextTurn(() => {
        thisTurnEnd = undefined;
        const commits: (() => void)[] = [];
        turnEndCommits = commits;
        resolve();
        // Queued after the reactions `resolve` just queued: it runs once every writer this turn
        // end woke has handed in its batch (each does so synchronously from its reaction). One
        // microtask per commit, so one that throws is reported alone, as a timer's would be.
        queueMicrotask(() => {
          turnEndCommits = undefined;
          for (const commit of commits) queueMicrotask(commit);
        });
      }),
    );
  }
  return thisTurnEnd;
}

/**
 * The commits handed to {@link commitAtTurnEnd} by the writers the current turn end woke;
 * undefined outside a turn end's writer phase.
 */
let turnEndCommits: (() => void)[] | undefined;

/**
 * Run a store's group `commit` at the end of the current turn. Called by a writer that a turn
 * end ({@link afterThisTurn}) woke — a journal queue or status writer handing in its batch — it
 * runs in that same turn, once every writer woken with it has handed in its batch: a batch is
 * queued and committed in one turn, so an observation lives across one turn boundary, not two
 * (at a thousand runs in flight, what lives across turns survives scavenges and is promoted).
 * Called at any other time, it runs at the end of the current turn (`nextTurn`).
 */
export function commitAtTurnEnd(commit: () => void): void {
  if (turnEndCommits !== undefined) turnEndCommits.push(commit);
  else nextTurn(commit);
}
