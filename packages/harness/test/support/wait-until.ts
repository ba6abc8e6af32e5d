/**
 * Wait for a condition, never for a fixed time: the one way tests in this repository wait for
 * something another async task does (a model being called, a status being written).
 */
import { setImmediate as nextTurn, setTimeout } from "node:timers";

/** Checks made one event-loop turn apart before the wait backs off to a millisecond timer. */
const EAGER_CHECKS = 100;

/**
 * Resolve once `condition()` holds: checked after every event-loop turn at first (timers, I/O and
 * promises run between checks; what the test awaits is usually there within a few turns), then
 * every millisecond so a longer wait (a real I/O or timer in the integration tier) does not spin
 * a core. Throws, naming `what`, when it still does not hold after `timeoutMs` of wall time
 * (default 4 s: inside the unit tier's 5 s test limit, and far beyond what any condition here
 * needs, even on a loaded machine).
 */
export async function waitUntil(
  condition: () => boolean,
  what = "the condition",
  timeoutMs = 4_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let checks = 0; !condition(); checks++) {
    if (Date.now() > deadline) throw new Error(`waitUntil: ${what} did not hold within ${timeoutMs} ms`);
    await new Promise<void>((resolve) =>
      checks < EAGER_CHECKS ? nextTurn(resolve) : setTimeout(resolve, 1),
    );
  }
}
