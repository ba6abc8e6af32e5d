import { TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import { AsyncQueue } from "../agent-loop/async-queue.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { RunContext } from "../context/run-context.js";
import type { EventRecord } from "../events/agent-event.js";
import type { HarnessRunStatus } from "../status/run-status.js";

/** One item of a streaming run: every event as it happens, then exactly one terminal item. */
export type AgentStreamItem =
  | { type: "event"; record: EventRecord }
  | { type: "completed"; run: AgentRun; status: HarnessRunStatus }
  | { type: "failed"; error: TinyAgentsError; run: AgentRun; status: HarnessRunStatus };

/**
 * The lower layer's streaming contract (`invokeStreaming`, `resumeStreaming`, `agent.stream`):
 * every event of the run in `ctx` as it happens, then one `completed` or `failed` item.
 * `start` runs the loop; `notStarted` builds the failed item of a run that could not start.
 * `return()` (a consumer that stops reading) cancels the run and waits for it to end.
 */
export function streamItems(
  ctx: RunContext<unknown>,
  start: () => Promise<RunOutcome>,
  notStarted: (error: TinyAgentsError) => { run: AgentRun; status: HarnessRunStatus },
  release: () => void,
): AsyncIterator<AgentStreamItem> {
  const queue = new AsyncQueue<AgentStreamItem>();
  const unsubscribe = ctx.events.subscribe((record) => queue.push({ type: "event", record }));
  const finished = start()
    .then(
      (outcome): AgentStreamItem =>
        outcome.error === undefined
          ? { type: "completed", run: outcome.run, status: outcome.status }
          : { type: "failed", error: outcome.error, run: outcome.run, status: outcome.status },
      (thrown: unknown): AgentStreamItem => {
        // The run could not start (e.g. depth over maxDepth): still end the stream with a failed item.
        const error = toTinyAgentsError(thrown);
        return { type: "failed", error, ...notStarted(error) };
      },
    )
    .then((last) => {
      unsubscribe();
      queue.push(last);
      queue.close();
      release();
    });
  const iterator = queue[Symbol.asyncIterator]();
  return {
    next: () => iterator.next(),
    return: async () => {
      ctx.cancel(
        new TinyAgentsError("cancelled", "the stream consumer stopped reading", {
          details: { where: "stream" },
        }),
      );
      unsubscribe();
      await finished;
      queue.close();
      return { done: true, value: undefined };
    },
  };
}
