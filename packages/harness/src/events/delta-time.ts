/**
 * The timestamp of a streamed model delta on the real clock (`Date.now`), read at most once every
 * {@link DELTA_TIME_REUSE} + 1 deltas of one event-loop turn.
 *
 * Why: reading the clock costs about as much as handing a delta to its consumer (~0.1 µs here),
 * and deltas come in bursts — a network chunk carries several, a cache replay thousands — all
 * handled in one event-loop turn, where no time passes but the CPU time of handling them. So a
 * delta reuses the previous reading for up to {@link DELTA_TIME_REUSE} more deltas (of any
 * stream) in the same turn; the first delta after a new turn reads the clock again. A delta's
 * `ts` is therefore never later than the clock at its emission and never earlier than the
 * clock at the 15th record before it in the same turn, and records on the real clock keep their
 * timestamps in emission order (other events read it through {@link realTime}). Clocks other
 * than the real one (a `DeterministicClock`, a sink's own `now`) are read for every delta.
 */
export const DELTA_TIME_REUSE = 15;

let reading = 0;
let reusesLeft = 0;
let turnWatched = false;
// Where the host has no `setImmediate` there is no cheap end-of-turn signal: read every time.
const schedule: ((callback: () => void) => unknown) | undefined =
  typeof setImmediate === "function" ? setImmediate : undefined;

function turnEnded(): void {
  turnWatched = false;
  reusesLeft = 0;
}

/** `Date.now()`, or the reading of at most {@link DELTA_TIME_REUSE} records ago in this turn. */
export function deltaTime(): number {
  if (reusesLeft > 0) {
    reusesLeft--;
    return reading;
  }
  reading = Date.now();
  if (schedule === undefined) return reading;
  reusesLeft = DELTA_TIME_REUSE;
  if (!turnWatched) {
    turnWatched = true;
    // Unref'd: it never keeps a process alive; if it never runs, no delta is read in a later turn.
    (schedule(turnEnded) as { unref?: () => void }).unref?.();
  }
  return reading;
}

/**
 * `Date.now()`, read now, for any other event on the real clock: the deltas that follow in this
 * turn may reuse it, so timestamps on the real clock never go backwards from one record to the
 * next. It watches for no turn's end (events other than deltas pay nothing extra): a reading is
 * offered for reuse only while a turn is already watched.
 */
export function realTime(): number {
  reading = Date.now();
  if (turnWatched) reusesLeft = DELTA_TIME_REUSE;
  return reading;
}
