import { type JsonObject, TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import { AsyncQueue } from "../agent-loop/async-queue.js";
import type { EventRecord } from "../contracts/agent-event.js";
import { AgentRunError, type RunResult, toRunResult } from "./run-result.js";
import { type AgentStreamItem, StreamItems } from "./stream-items.js";

/**
 * One item of `agent.stream(...)`: every event of the run as it happens (model text, reasoning and
 * tool-call deltas, tool calls, sub-agents...), then one `completed` item with the result. A failed
 * run has no last item: the iteration THROWS an `AgentRunError` carrying the partial run instead.
 */
export type RunStreamItem<Out = unknown> =
  | { type: "event"; record: EventRecord }
  | { type: "completed"; result: RunResult<Out> };

/** Options of {@link AgentStream.toResponse}. */
export interface StreamResponseOptions {
  /** HTTP status (default 200). */
  status?: number;
  /** Extra headers (the SSE content type and `cache-control: no-cache` are always set). */
  headers?: Record<string, string>;
  /** Which events to send (default: all). The final `completed` or `error` frame is always sent. */
  filter?: (record: EventRecord) => boolean;
}

const encoder = new TextEncoder();

/**
 * What `agent.stream(input, options)` returns: one run, readable in the way the caller needs.
 *
 * - `for await (const item of stream)`: typed {@link RunStreamItem}s; throws `AgentRunError` when
 *   the run fails, so a loop can never end silently on a failure.
 * - `stream.result`: the promise of the {@link RunResult} (rejects with the same `AgentRunError`).
 * - `stream.textStream`: only the answer's text, chunk by chunk (throws on failure too).
 * - `stream.toReadableStream()` / `stream.toResponse()`: a WHATWG `ReadableStream` of items, or a
 *   server-sent-events `Response` for fetch-style servers (Hono, Next.js route handlers, Bun, Deno).
 *
 * The run starts on first use (iteration, `result`, an adapter). The items can be read ONCE, by one
 * of the iteration, `textStream`, `toReadableStream` or `toResponse`; `result` can be awaited in
 * addition, any number of times. Stopping early (`break`, cancelling the ReadableStream, a client
 * disconnecting from the Response) cancels the run: `result` then rejects with code `cancelled`.
 */
export class AgentStream<Out = unknown> implements AsyncIterable<RunStreamItem<Out>> {
  private readonly open: () => AsyncIterator<AgentStreamItem>;
  private source: AsyncIterator<AgentStreamItem> | undefined;
  // Internals are typed with `unknown` so that AgentStream stays covariant in `Out` (an agent
  // typed by its response format is still assignable to a plain AgentHarness).
  private readonly queue = new AsyncQueue<RunStreamItem<unknown>>();
  private readonly settled: Promise<RunResult<Out>>;
  private resolveResult!: (result: RunResult<unknown>) => void;
  private rejectResult!: (error: TinyAgentsError) => void;
  private reader: string | undefined;
  private started = false;
  // The terminal item arrived: the run is over, stopping early has nothing to cancel.
  private ended = false;
  // Bound once: the lower layer hands every item here (see start).
  private readonly accept = (item: AgentStreamItem): void => {
    if (item.type === "event") {
      this.queue.push(item);
      return;
    }
    this.ended = true;
    const result = toRunResult<unknown>(item.run, item.status);
    if (item.type === "completed") {
      this.resolveResult(result);
      this.queue.push({ type: "completed", result });
      this.queue.close();
    } else {
      this.fail(new AgentRunError(item.error, result as RunResult));
    }
  };

  /** @internal Use `agent.stream(input, options)`. */
  constructor(open: () => AsyncIterator<AgentStreamItem>) {
    this.open = open;
    this.settled = new Promise<RunResult<Out>>((resolve, reject) => {
      this.resolveResult = resolve as (result: RunResult<unknown>) => void;
      this.rejectResult = reject;
    });
    // Nobody has to await `result`: a failure reaches the reader of the items instead.
    this.settled.catch(() => {});
  }

  /** The final result; rejects with an `AgentRunError` (carrying the partial run) when the run fails. */
  get result(): Promise<RunResult<Out>> {
    this.start();
    return this.settled;
  }

  /** The answer's text as it is generated (the top-level run's text deltas only). */
  get textStream(): AsyncIterable<string> {
    const items = this.claim("textStream");
    return {
      [Symbol.asyncIterator]: () => {
        let rootRunId: string | undefined;
        return {
          next: async (): Promise<IteratorResult<string>> => {
            for (;;) {
              const step = await items.next();
              if (step.done) return { done: true, value: undefined };
              const item = step.value;
              if (item.type !== "event") continue;
              const { event, runId } = item.record;
              rootRunId ??= runId;
              if (event.type === "model.text_delta" && runId === rootRunId)
                return { done: false, value: event.text };
            }
          },
          return: async () => {
            await items.return?.();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  [Symbol.asyncIterator](): AsyncIterator<RunStreamItem<Out>> {
    return this.claim("iteration");
  }

  /** The items as a WHATWG `ReadableStream`; it errors with the `AgentRunError` when the run fails. */
  toReadableStream(): ReadableStream<RunStreamItem<Out>> {
    const items = this.claim("toReadableStream");
    return new ReadableStream<RunStreamItem<Out>>({
      pull: async (controller) => {
        try {
          const step = await items.next();
          if (step.done) controller.close();
          else controller.enqueue(step.value);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel: async () => {
        await items.return?.();
      },
    });
  }

  /**
   * A server-sent-events `Response` (`text/event-stream`): one `data:` frame per item, JSON with a
   * `type` — `{"type":"event","record":…}` (with the record id as the SSE `id`), then
   * `{"type":"completed","result":…}` (the result without its transcript) or, when the run fails,
   * `{"type":"error","error":{code,message,details},"run":…}`. The client disconnecting cancels
   * the run. Works wherever `Response` does: Node 18+, Bun, Deno, Cloudflare, Next.js, Hono.
   */
  toResponse(options: StreamResponseOptions = {}): Response {
    const items = this.claim("toResponse");
    const filter = options.filter;
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        for (;;) {
          let frame: string;
          try {
            const step = await items.next();
            if (step.done) {
              controller.close();
              return;
            }
            const item = step.value;
            if (item.type === "event") {
              if (filter !== undefined && !filter(item.record)) continue;
              frame = `id: ${item.record.id}\ndata: ${JSON.stringify(item)}\n\n`;
            } else {
              frame = `data: ${JSON.stringify({ type: "completed", result: summary(item.result) })}\n\n`;
            }
          } catch (thrown) {
            const error = toTinyAgentsError(thrown);
            const run = AgentRunError.isAgentRunError(error) ? summary(error.run) : undefined;
            frame = `data: ${JSON.stringify({ type: "error", error: error.toJSON(), ...(run ? { run } : {}) })}\n\n`;
            controller.enqueue(encoder.encode(frame));
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(frame));
          return;
        }
      },
      cancel: async () => {
        await items.return?.();
      },
    });
    const headers = new Headers(options.headers);
    headers.set("content-type", "text/event-stream; charset=utf-8");
    headers.set("cache-control", "no-cache");
    if (!headers.has("x-accel-buffering")) headers.set("x-accel-buffering", "no");
    return new Response(body, { status: options.status ?? 200, headers });
  }

  // ---- internals ----------------------------------------------------------------------------

  /** Start the run once, pumping its items into the queue and settling `result`. */
  private start(): void {
    if (this.started) return;
    this.started = true;
    let source: AsyncIterator<AgentStreamItem>;
    try {
      source = this.open();
    } catch (thrown) {
      // The run could not be set up (an unknown model, bad ids): fail like a run that failed.
      this.fail(toTinyAgentsError(thrown));
      return;
    }
    this.source = source;
    // Our own lower layer hands its items over as they happen (one queue, no await per item).
    if (source instanceof StreamItems) source.forward(this.accept);
    else void this.pump(source);
  }

  private async pump(source: AsyncIterator<AgentStreamItem>): Promise<void> {
    for (;;) {
      let step: IteratorResult<AgentStreamItem>;
      try {
        step = await source.next();
      } catch (thrown) {
        // The lower layer always ends with a terminal item: this is a defect, still never silent.
        this.fail(toTinyAgentsError(thrown));
        return;
      }
      if (step.done) {
        this.fail(new TinyAgentsError("internal", "the run's stream ended without a final item"));
        return;
      }
      this.accept(step.value);
      if (step.value.type !== "event") return;
    }
  }

  /** Settle as failed; `error` is an `AgentRunError` except on a defect of the lower layer. */
  private fail(error: TinyAgentsError): void {
    this.ended = true;
    this.rejectResult(error);
    this.queue.fail(error);
  }

  /** The one reader of the items: a second one gets a `validation` error saying why. */
  private claim(by: string): AsyncIterator<RunStreamItem<Out>> {
    if (this.reader !== undefined) {
      throw new TinyAgentsError(
        "validation",
        `this AgentStream is already read by ${this.reader}; its items can be read once ` +
          "(await stream.result as often as needed, or start another agent.stream for a second reader)",
        { details: { field: by } },
      );
    }
    this.reader = by;
    this.start();
    const queue = this.queue;
    let stopped = false;
    return {
      // The queue's own read: queued items come back already settled; a failed run rejects once.
      next: () =>
        (stopped ? Promise.resolve({ done: true, value: undefined }) : queue.next()) as Promise<
          IteratorResult<RunStreamItem<Out>>
        >,
      return: async () => {
        if (!stopped) {
          stopped = true;
          // Stopping early cancels the run (the lower layer's contract); wait until it has ended.
          if (!this.ended) await this.source?.return?.();
        }
        return { done: true, value: undefined };
      },
    };
  }
}

/** The result as sent to a client: no transcript, no status record. */
function summary(result: RunResult): JsonObject {
  const out: Record<string, unknown> = {
    runId: result.runId,
    text: result.text,
    stopReason: result.stopReason,
    usage: result.usage,
    cost: result.cost,
    modelCalls: result.modelCalls,
    toolCalls: result.toolCalls,
  };
  if (result.threadId !== undefined) out.threadId = result.threadId;
  if (result.structured !== undefined) out.structured = result.structured;
  return out as JsonObject;
}
