import { ProviderError, TinyAgentsError, validationError } from "@tinyagents/inference";
import type { EventRecord } from "../contracts/agent-event.js";
import type { EventScope, EventSink } from "../events/event-sink.js";
import type { DropReason, DropReport, PendingDrop } from "../observability/bounded-queue.js";
import type { ObservationSink } from "../observability/sink.js";
import type { LangfuseClient, LangfuseExportOptions, LangfuseExportResult } from "./langfuse-client.js";

/** Options of {@link LangfuseSink}: what each export sends, and the queue and retry bounds. */
export interface LangfuseSinkOptions extends Omit<LangfuseExportOptions, "signal" | "scores"> {
  /**
   * Most records held (runs still open plus finished traces waiting to be sent); beyond it new
   * records are dropped and reported. Default 20,000.
   */
  maxQueue?: number;
  /** Most finished traces sent in one `exportRun` (one batch of requests). Default 20. */
  batchTraces?: number;
  /** Tries per batch for a retryable failure (429, 5xx, network, timeout). Default 5. */
  maxAttempts?: number;
  /** First backoff; doubles per retry (with jitter) up to `maxBackoffMs`. Default 500 ms. */
  initialBackoffMs?: number;
  /** Longest wait between tries; a longer `Retry-After` is capped to it. Default 30,000 ms. */
  maxBackoffMs?: number;
  /** Where drops are reported as `journal.dropped` events (sink `"langfuse"`). */
  events?: EventSink;
  /** Told about every drop report. */
  onDrop?: (report: DropReport) => void;
  /** Told about export failures (after the retries) and per-item rejections. */
  onError?: (error: unknown) => void;
}

interface Trace {
  records: EventRecord[];
}

/** How many finished roots are remembered, so late records of an exported trace are ignored. */
const FINISHED_MEMORY = 1_000;

/**
 * Exports runs to Langfuse as they finish — the live counterpart of `LangfuseClient.exportRun`.
 * Put it in `attachObservability(events, { sinks: [langfuse] })` (or `langfuse.attach(events)`):
 * records are grouped by root run; when a root run ends its trace is queued, and a background
 * loop sends up to `batchTraces` finished traces per export.
 *
 * Under failure: a retryable failure (HTTP 429 or 5xx, network error, timeout) is retried with
 * exponential backoff and jitter, waiting at least the server's `Retry-After`; after
 * `maxAttempts` (or on a non-retryable failure) the batch is dropped. Memory is bounded:
 * at most `maxQueue` records are held; beyond it new records are dropped. Every loss is counted
 * (`dropped`), reported as a `journal.dropped` event (sink `"langfuse"`) and to `onError`/`onDrop`
 * — never silent. `flush()` sends what has finished; `close()` also sends the runs still open
 * (their unfinished spans are closed as incomplete) and waits for the retries.
 */
export class LangfuseSink implements ObservationSink {
  readonly maxQueue: number;
  private readonly client: LangfuseClient;
  private readonly options: LangfuseSinkOptions;
  private readonly exportOptions: LangfuseExportOptions;
  private readonly batchTraces: number;
  private readonly maxAttempts: number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  /** Open traces by root run id, in arrival order. */
  private readonly open = new Map<string, Trace>();
  private readonly ready: Trace[] = [];
  private readonly finished = new Set<string>();
  private held = 0;
  private droppedTotal = 0;
  private exportedTraces = 0;
  private closed = false;
  private draining: Promise<void> | undefined;
  private readonly pending = new Map<DropReason, PendingDrop>();
  private readonly reporters = new Map<EventSink, (error: unknown) => void>();

  constructor(client: LangfuseClient, options: LangfuseSinkOptions = {}) {
    const {
      maxQueue,
      batchTraces,
      maxAttempts,
      initialBackoffMs,
      maxBackoffMs,
      events: _events,
      onDrop: _onDrop,
      onError: _onError,
      ...exportOptions
    } = options;
    this.client = client;
    this.options = options;
    this.exportOptions = exportOptions;
    this.maxQueue = whole(maxQueue, 20_000, "maxQueue", 1);
    this.batchTraces = whole(batchTraces, 20, "batchTraces", 1);
    this.maxAttempts = whole(maxAttempts, 5, "maxAttempts", 1);
    this.initialBackoffMs = whole(initialBackoffMs, 500, "initialBackoffMs", 0);
    this.maxBackoffMs = whole(maxBackoffMs, 30_000, "maxBackoffMs", 0);
  }

  /** `JSON.stringify` / `util.inspect`: the client's credential-free view, never queued content. */
  toJSON(): { type: "LangfuseSink"; client: unknown } {
    return { type: "LangfuseSink", client: this.client.toJSON() };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): object {
    return this.toJSON();
  }

  /** Records lost so far (queue full, failed exports, written after `close`). */
  get dropped(): number {
    return this.droppedTotal;
  }

  /** Traces sent so far. */
  get exported(): number {
    return this.exportedTraces;
  }

  /** Records held now (open runs and traces waiting to be sent). */
  get queued(): number {
    return this.held;
  }

  /** Subscribe to an event sink; returns the unsubscribe function (drops are reported on it too). */
  attach(events: EventSink): () => void {
    const unsubscribe = events.subscribe((record) => this.write(record));
    const detach = this.attachReporting(events, (error) => this.options.onError?.(error));
    return () => {
      unsubscribe();
      detach();
    };
  }

  attachReporting(events: EventSink, onError: (error: unknown) => void): () => void {
    this.reporters.set(events, onError);
    return () => {
      this.reporters.delete(events);
    };
  }

  write(record: EventRecord): void {
    // Our own loss reports are not exported (they would reopen a trace already sent).
    if (record.event.type === "journal.dropped" && record.event.sink === "langfuse") return;
    if (this.finished.has(record.rootRunId)) return;
    if (this.closed) {
      this.noteDrop("write_failed", [record]);
      this.report();
      return;
    }
    if (this.held >= this.maxQueue) {
      this.noteDrop("queue_full", [record]);
      return;
    }
    let trace = this.open.get(record.rootRunId);
    if (trace === undefined) {
      trace = { records: [] };
      this.open.set(record.rootRunId, trace);
    }
    trace.records.push(record);
    this.held += 1;
    const type = record.event.type;
    const rootEnded =
      record.runId === record.rootRunId &&
      (type === "run.completed" || type === "run.failed" || type === "run.interrupted");
    if (rootEnded) {
      this.open.delete(record.rootRunId);
      this.remember(record.rootRunId);
      this.ready.push(trace);
      this.drainSoon();
    }
  }

  /** Resolves once every trace finished so far has been sent (or dropped and reported). */
  async flush(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
    this.report();
  }

  /** Stop accepting records, send the finished traces and the open ones, then report. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      for (const [root, trace] of this.open) {
        this.remember(root);
        this.ready.push(trace);
      }
      this.open.clear();
      this.drainSoon();
    }
    await this.flush();
  }

  private remember(root: string): void {
    this.finished.add(root);
    if (this.finished.size > FINISHED_MEMORY) {
      const oldest = this.finished.values().next().value;
      if (oldest !== undefined) this.finished.delete(oldest);
    }
  }

  private drainSoon(): void {
    this.draining ??= Promise.resolve()
      .then(() => this.drain())
      .finally(() => {
        this.draining = undefined;
      });
  }

  private async drain(): Promise<void> {
    while (this.ready.length > 0) {
      const batch = this.ready.splice(0, this.batchTraces);
      const records = batch.flatMap((trace) => trace.records);
      const sent = await this.send(records);
      this.held -= records.length;
      if (sent) this.exportedTraces += batch.length;
      else this.noteDrop("write_failed", records);
      this.report();
    }
  }

  /** One batch with retries; false when it was given up (the error went to `onError`). */
  private async send(records: readonly EventRecord[]): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      let result: LangfuseExportResult;
      try {
        result = await this.client.exportRun(records, this.exportOptions);
      } catch (error) {
        const retryable = ProviderError.isProviderError(error) && error.retryable;
        if (!retryable || attempt >= this.maxAttempts) {
          this.fail(error, records);
          return false;
        }
        await sleep(this.delay(attempt, error.retryAfterMs));
        continue;
      }
      if (!result.ok) {
        this.fail(
          new TinyAgentsError(
            "provider",
            `Langfuse did not store ${result.failed.length} item(s) of an export (${result.failed
              .slice(0, 3)
              .map((item) => `${item.id}: ${item.message}`)
              .join("; ")}); they are not retried.`,
            { details: { failed: result.failed.length } },
          ),
          records,
        );
      }
      return true;
    }
  }

  /** Exponential backoff with ±20% jitter, at least `Retry-After`, at most `maxBackoffMs`. */
  private delay(attempt: number, retryAfterMs: number | undefined): number {
    const base = this.initialBackoffMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
    return Math.min(Math.max(base, retryAfterMs ?? 0), this.maxBackoffMs);
  }

  private fail(error: unknown, records: readonly EventRecord[]): void {
    this.options.onError?.(error);
    const root = records[0]?.rootRunId;
    const reporter = root === undefined ? undefined : this.reporterFor(root);
    if (this.options.onError === undefined) reporter?.[1](error);
  }

  private noteDrop(reason: DropReason, lost: readonly EventRecord[]): void {
    this.droppedTotal += lost.length;
    const first = lost[0];
    const last = lost.at(-1);
    if (first === undefined || last === undefined) return;
    const scope: EventScope = { runId: last.runId, rootRunId: last.rootRunId, depth: last.depth };
    if (last.parentRunId !== undefined) scope.parentRunId = last.parentRunId;
    const pending = this.pending.get(reason);
    if (pending === undefined) {
      this.pending.set(reason, { count: lost.length, from: first.offset, to: last.offset, scope });
    } else {
      pending.count += lost.length;
      pending.to = last.offset;
      pending.scope = scope;
    }
  }

  private reporterFor(rootRunId: string): [EventSink, (error: unknown) => void] | undefined {
    let first: [EventSink, (error: unknown) => void] | undefined;
    for (const entry of this.reporters) {
      first ??= entry;
      if (entry[0].streamId === rootRunId) return entry;
    }
    return first;
  }

  /** Emit every pending drop report as `journal.dropped` and hand it to `onDrop` / `onError`. */
  private report(): void {
    for (const [reason, drop] of [...this.pending]) {
      this.pending.delete(reason);
      const report: DropReport = {
        sink: "langfuse",
        dropped: drop.count,
        fromOffset: drop.from,
        toOffset: drop.to,
        reason,
        scope: drop.scope,
      };
      this.options.onDrop?.(report);
      const event = {
        type: "journal.dropped",
        sink: "langfuse",
        dropped: drop.count,
        fromOffset: drop.from,
        toOffset: drop.to,
        reason,
      } as const;
      const error = new TinyAgentsError(
        "storage",
        `the Langfuse sink dropped ${drop.count} records (${reason === "queue_full" ? "queue full: raise maxQueue, or Langfuse is too slow or down" : "the export failed after its retries, or arrived after close()"})`,
        { details: { sink: "langfuse", dropped: drop.count, reason } },
      );
      const reporter = this.reporterFor(drop.scope.rootRunId);
      const events = this.options.events ?? reporter?.[0];
      events?.emit(drop.scope, event);
      if (this.options.onError !== undefined) this.options.onError(error);
      else reporter?.[1](error);
    }
  }
}

function whole(value: number | undefined, fallback: number, field: string, min: number): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < min) {
    throw validationError(`LangfuseSink: ${field} must be an integer >= ${min}, got ${String(value)}`, {
      field,
    });
  }
  return resolved;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
