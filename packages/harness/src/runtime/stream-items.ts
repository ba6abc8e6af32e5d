import { TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import { AsyncQueue } from "../agent-loop/async-queue.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { EventRecord } from "../contracts/agent-event.js";
import type { RunContext } from "../contracts/run-context.js";
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
): StreamItems {
  return new StreamItems(ctx, start, notStarted, release);
}

/**
 * The items of one streaming run, read as an async iterator (each event queued as it is
 * emitted: the run never waits for the reader), or handed synchronously to one callback
 * ({@link forward}: for a reader with a queue of its own, such as `AgentStream`, so an item is
 * queued once, not twice).
 */
export class StreamItems implements AsyncIterator<AgentStreamItem> {
  private readonly ctx: RunContext<unknown>;
  private readonly queue = new AsyncQueue<AgentStreamItem>();
  private target: (item: AgentStreamItem) => void;
  private readonly unsubscribe: () => void;
  private readonly finished: Promise<void>;

  constructor(
    ctx: RunContext<unknown>,
    start: () => Promise<RunOutcome>,
    notStarted: (error: TinyAgentsError) => { run: AgentRun; status: HarnessRunStatus },
    release: () => void,
  ) {
    this.ctx = ctx;
    const queue = this.queue;
    this.target = (item) => queue.push(item);
    // One listener per run; an event record becomes one item.
    this.unsubscribe = ctx.events.subscribe((record) => this.target({ type: "event", record }));
    this.finished = start()
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
        this.unsubscribe();
        this.target(last);
        queue.close();
        release();
      });
  }

  /**
   * From now on hand every item to `target` as it happens (the ones already queued first), in
   * place of the queue; the terminal item is the last call. Call it before reading with `next`.
   */
  forward(target: (item: AgentStreamItem) => void): void {
    for (let item = this.queue.take(); item !== undefined; item = this.queue.take()) target(item);
    this.target = target;
  }

  next(): Promise<IteratorResult<AgentStreamItem>> {
    return this.queue.next();
  }

  async return(): Promise<IteratorResult<AgentStreamItem>> {
    this.ctx.cancel(
      new TinyAgentsError("cancelled", "the stream consumer stopped reading", {
        details: { where: "stream" },
      }),
    );
    this.unsubscribe();
    await this.finished;
    this.queue.close();
    return { done: true, value: undefined };
  }
}
