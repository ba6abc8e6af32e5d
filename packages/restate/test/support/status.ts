// Waiting on a run that executes on restate-server: its status is polled through the client.
import type { RestateAgentClient, RestateRunStatus } from "../../src/index.js";

/**
 * Poll the status of `agent`'s run `runId` (every 20 ms, through `client`) until `done` holds;
 * resolves with that status. Unbounded: the test's own time limit ends a run that never gets there.
 */
export async function statusWhen(
  client: RestateAgentClient,
  agent: string,
  runId: string,
  done: (status: RestateRunStatus | undefined) => boolean,
): Promise<RestateRunStatus | undefined> {
  for (;;) {
    const status = await client.status(agent, runId);
    if (done(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
