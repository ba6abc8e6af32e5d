import { abortError } from "../../context/abort.js";
import type { RunContext } from "../../contracts/run-context.js";

/**
 * Wait `ms` on the run's clock (virtual under `DeterministicClock`), abortable by the run's signal:
 * an abort rejects with the run's `cancelled` (or timeout) error.
 */
export async function sleepOnRunClock(run: RunContext<unknown>, ms: number, where: string): Promise<void> {
  if (run.signal.aborted) throw abortError(run.signal, where);
  try {
    await run.clock.sleep(Math.max(0, ms), run.signal);
  } catch {
    throw abortError(run.signal, where);
  }
}
