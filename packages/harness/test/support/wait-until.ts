/**
 * Wait for a condition, never for a fixed time: the one way tests in this repository wait for
 * something another async task does (a model being called, a status being written).
 */
import { setImmediate as nextTurn } from "node:timers";

/**
 * Resolve once `condition()` holds, checking after every event-loop turn (timers, I/O and
 * promises get to run between checks; nothing sleeps). Throws, naming `what`, when it still does
 * not hold after `timeoutMs` of wall time (default 4 s: inside the unit tier's 5 s test limit, and
 * far beyond what any condition here needs, even on a loaded machine).
 */
export async function waitUntil(
  condition: () => boolean,
  what = "the condition",
  timeoutMs = 4_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waitUntil: ${what} did not hold within ${timeoutMs} ms`);
    await new Promise<void>((resolve) => nextTurn(resolve));
  }
}
