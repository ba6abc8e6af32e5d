import {
  type Attributes,
  type Context,
  createContextKey,
  context as otelContext,
  TraceFlags,
} from "@opentelemetry/api";
import { TinyAgentsError, validationError } from "@tinyagents/inference";
import type { EventScope, EventSink } from "../events/event-sink.js";
import type { DropReason, DropReport } from "../observability/bounded-queue.js";
import { TINYAGENTS_ATTR } from "./gen-ai-conventions.js";

/** What the processor reads of an ended span (the SDK's `ReadableSpan` has all of it). */
export interface ExportableSpan {
  readonly attributes: Attributes;
  spanContext(): { traceFlags: number };
  readonly resource?: { asyncAttributesPending?: boolean; waitForAsyncAttributes?(): Promise<void> };
}

/** An OpenTelemetry `SpanExporter` (e.g. `OTLPTraceExporter` from `exporter-trace-otlp-proto`). */
export interface ExportingSpanExporter<S extends ExportableSpan> {
  /** `result.code` 0 is SUCCESS (the SDK's `ExportResultCode`), anything else FAILED. */
  export(spans: S[], resultCallback: (result: { code: number; error?: Error }) => void): void;
  shutdown(): Promise<void>;
}

/** Options of {@link ReportingBatchSpanProcessor} (the first four as the SDK's `BatchSpanProcessor`). */
export interface ReportingBatchSpanProcessorOptions {
  /** Most ended spans held; beyond it new spans are dropped and counted (default 2048). */
  maxQueueSize?: number;
  /** Most spans per export, at most `maxQueueSize`; a full batch leaves at once (default 512). */
  maxExportBatchSize?: number;
  /** A partial batch leaves this long after its first span (default 5000 ms). */
  scheduledDelayMillis?: number;
  /** An export that has not answered by then counts as failed (default 30000 ms). */
  exportTimeoutMillis?: number;
  /** Where drops are reported as `journal.dropped` events (sink `"otel"`); or use `attachReporting`. */
  events?: EventSink;
  /** Told about every drop report. */
  onDrop?: (report: DropReport) => void;
  /** Told about failed exports (the exporter's error) and every drop (a `storage` TinyAgentsError). */
  onError?: (error: unknown) => void;
}

// @opentelemetry/core's suppressTracing key (createContextKey is Symbol.for, so it is the same
// key): the exporter's own HTTP request must not become a span that is exported again.
const SUPPRESS_TRACING = createContextKey("OpenTelemetry SDK Context Key SUPPRESS_TRACING");

interface PendingDrop {
  count: number;
  from: number;
  to: number;
  scope: EventScope | undefined;
}

type Reporter = [EventSink, (error: unknown) => void];

/**
 * An OpenTelemetry `SpanProcessor` like the SDK's `BatchSpanProcessor` — bounded queue, batches
 * on size or `scheduledDelayMillis`, one export at a time (the exporter does its own retries:
 * the OTLP exporters retry 429/502/503/504 honouring `Retry-After`), `forceFlush`, and `shutdown`
 * that flushes — whose losses are reported instead of going only to the SDK's `diag` log. Every
 * dropped span is counted (`dropped`): the queue was full (`queue_full`), the export failed after
 * the exporter's retries or timed out, or the span ended after `shutdown()` (`write_failed`). A
 * burst of drops becomes one `journal.dropped` event (sink `"otel"`; the offsets are the ordinals
 * of the lost spans among those this processor received) on `options.events` or the sink given
 * to `attachReporting` (the one of the lost span's root run), plus a call of `onDrop` and a
 * `storage` error to `onError`. The event carries the run of the last lost span that has
 * `tinyagents.run.*` attributes. Timers are `unref()`ed and none outlives `shutdown()`.
 *
 * ```ts
 * const processor = new ReportingBatchSpanProcessor(new OTLPTraceExporter(), { events });
 * const provider = new BasicTracerProvider({ spanProcessors: [processor] });
 * ```
 */
export class ReportingBatchSpanProcessor<S extends ExportableSpan = ExportableSpan> {
  readonly maxQueueSize: number;
  readonly maxExportBatchSize: number;
  readonly scheduledDelayMillis: number;
  readonly exportTimeoutMillis: number;
  /** Spans lost so far (every reason). */
  dropped = 0;
  private readonly queue: S[] = [];
  private received = 0;
  private lastScope: EventScope | undefined;
  private readonly pending = new Map<DropReason, PendingDrop>();
  private readonly reporters = new Set<Reporter>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private reportSoon: ReturnType<typeof setImmediate> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private kickQueued = false;
  private kickAll = false;
  private closed: Promise<void> | undefined;

  constructor(
    private readonly exporter: ExportingSpanExporter<S>,
    private readonly options: ReportingBatchSpanProcessorOptions = {},
  ) {
    this.maxQueueSize = whole(options.maxQueueSize, 2048, "maxQueueSize", 1);
    this.maxExportBatchSize = whole(options.maxExportBatchSize, 512, "maxExportBatchSize", 1);
    if (this.maxExportBatchSize > this.maxQueueSize) {
      throw validationError(
        `ReportingBatchSpanProcessor: maxExportBatchSize (${this.maxExportBatchSize}) must not exceed maxQueueSize (${this.maxQueueSize})`,
        { field: "maxExportBatchSize" },
      );
    }
    this.scheduledDelayMillis = whole(options.scheduledDelayMillis, 5000, "scheduledDelayMillis", 0);
    this.exportTimeoutMillis = whole(options.exportTimeoutMillis, 30_000, "exportTimeoutMillis", 1);
  }

  /** `JSON.stringify` / `util.inspect`: never the wrapped exporter (its headers may carry an API key). */
  toJSON(): { type: "ReportingBatchSpanProcessor" } {
    return { type: "ReportingBatchSpanProcessor" };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): object {
    return this.toJSON();
  }

  /** Report drops on `events` (when `options.events` is unset) and to `onError`; returns the detach function. */
  attachReporting(events: EventSink, onError: (error: unknown) => void): () => void {
    const entry: Reporter = [events, onError];
    this.reporters.add(entry);
    return () => this.reporters.delete(entry);
  }

  onStart(_span: unknown, _parentContext: Context): void {}

  onEnd(span: S): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    const ordinal = this.received++;
    const scope = scopeOf(span.attributes);
    if (scope !== undefined) this.lastScope = scope;
    if (this.closed !== undefined) this.noteDrop("write_failed", ordinal, ordinal, 1);
    else if (this.queue.length >= this.maxQueueSize) this.noteDrop("queue_full", ordinal, ordinal, 1);
    else this.enqueue(span);
  }

  private enqueue(span: S): void {
    this.queue.push(span);
    if (this.queue.length >= this.maxExportBatchSize) void this.kick(false);
    else this.armTimer();
  }

  /** Export everything queued (in batches) and report pending drops. */
  async forceFlush(): Promise<void> {
    this.disarmTimer();
    await this.kick(true);
    this.flushReports();
  }

  /**
   * Flush, then shut the exporter down; spans ending afterwards are counted as dropped (calling
   * it again reports those at once).
   */
  async shutdown(): Promise<void> {
    this.closed ??= (async () => {
      await this.forceFlush();
      await this.exporter.shutdown();
    })();
    await this.closed;
    this.flushReports();
  }

  private kick(all: boolean): Promise<void> {
    this.kickAll ||= all;
    if (this.kickQueued) return this.chain;
    this.kickQueued = true;
    this.chain = this.chain.then(() => this.drain());
    return this.chain;
  }

  private async drain(): Promise<void> {
    const all = this.kickAll;
    this.kickQueued = false;
    this.kickAll = false;
    while (this.queue.length >= (all ? 1 : this.maxExportBatchSize)) {
      const first = this.received - this.queue.length;
      const batch = this.queue.splice(0, this.maxExportBatchSize);
      if (!(await this.exportBatch(batch))) {
        this.noteDrop("write_failed", first, first + batch.length - 1, batch.length);
        this.flushReports();
      }
    }
    if (this.queue.length > 0) this.armTimer();
  }

  /** One export; resolves false when it failed, threw or timed out. Never rejects. */
  private async exportBatch(batch: S[]): Promise<boolean> {
    try {
      const waits = batch.flatMap((span) =>
        span.resource?.asyncAttributesPending === true && span.resource.waitForAsyncAttributes !== undefined
          ? [span.resource.waitForAsyncAttributes()]
          : [],
      );
      if (waits.length > 0) await Promise.all(waits);
      const result = await new Promise<{ code: number; error?: Error }>((resolve) => {
        const timeout = setTimeout(
          () =>
            resolve({
              code: 1,
              error: new Error(`span export timed out after ${this.exportTimeoutMillis} ms`),
            }),
          this.exportTimeoutMillis,
        );
        timeout.unref();
        otelContext.with(otelContext.active().setValue(SUPPRESS_TRACING, true), () =>
          this.exporter.export(batch, (answer) => {
            clearTimeout(timeout);
            resolve(answer);
          }),
        );
      });
      if (result.code === 0) return true;
      this.tellError(result.error ?? new Error("span export failed"));
    } catch (error) {
      this.tellError(error);
    }
    return false;
  }

  private armTimer(): void {
    if (this.timer !== undefined || this.closed !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.kick(true);
    }, this.scheduledDelayMillis);
    this.timer.unref();
  }

  private disarmTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private noteDrop(reason: DropReason, from: number, to: number, count: number): void {
    this.dropped += count;
    const pending = this.pending.get(reason);
    if (pending === undefined) this.pending.set(reason, { count, from, to, scope: this.lastScope });
    else {
      pending.count += count;
      pending.to = to;
      pending.scope = this.lastScope ?? pending.scope;
    }
    // One report per burst: emitted after the current turn (never inside the emit that ended the span).
    if (this.reportSoon === undefined) {
      this.reportSoon = setImmediate(() => {
        this.reportSoon = undefined;
        this.flushReports();
      });
      this.reportSoon.unref();
    }
  }

  private tellError(error: unknown): void {
    if (this.options.onError !== undefined) this.options.onError(error);
    else for (const [, onError] of this.reporters) onError(error);
  }

  /** Emit every pending drop report as `journal.dropped` and hand it to `onDrop` / `onError`. */
  private flushReports(): void {
    if (this.reportSoon !== undefined) {
      clearImmediate(this.reportSoon);
      this.reportSoon = undefined;
    }
    for (const [reason, drop] of [...this.pending]) {
      this.pending.delete(reason);
      const scope = drop.scope ?? { runId: "otel", rootRunId: "otel", depth: 0 };
      const report: DropReport = {
        sink: "otel",
        dropped: drop.count,
        fromOffset: drop.from,
        toOffset: drop.to,
        reason,
        scope,
      };
      this.options.onDrop?.(report);
      const reporter = this.reporterFor(scope.rootRunId);
      const events = this.options.events ?? reporter?.[0];
      if (drop.scope !== undefined) {
        events?.emit(scope, {
          type: "journal.dropped",
          sink: "otel",
          dropped: drop.count,
          fromOffset: drop.from,
          toOffset: drop.to,
          reason,
        });
      }
      const error = new TinyAgentsError(
        "storage",
        `the OpenTelemetry span processor dropped ${drop.count} spans (${reason === "queue_full" ? "queue full: raise maxQueueSize, or the receiver is too slow or down" : "the export failed after the exporter's retries, or the spans ended after shutdown()"})`,
        { details: { sink: "otel", dropped: drop.count, reason } },
      );
      if (this.options.onError !== undefined) this.options.onError(error);
      else reporter?.[1](error);
    }
  }

  private reporterFor(rootRunId: string): Reporter | undefined {
    let first: Reporter | undefined;
    for (const entry of this.reporters) {
      first ??= entry;
      if (entry[0].streamId === rootRunId) return entry;
    }
    return first;
  }
}

/** The harness run a span belongs to, from its `tinyagents.run.*` attributes. */
function scopeOf(attributes: Attributes): EventScope | undefined {
  const runId = attributes[TINYAGENTS_ATTR.runId];
  const rootRunId = attributes[TINYAGENTS_ATTR.rootRunId];
  if (typeof runId !== "string" || typeof rootRunId !== "string") return undefined;
  const depth = attributes[TINYAGENTS_ATTR.depth];
  const scope: EventScope = { runId, rootRunId, depth: typeof depth === "number" ? depth : 0 };
  const parentRunId = attributes[TINYAGENTS_ATTR.parentRunId];
  if (typeof parentRunId === "string") scope.parentRunId = parentRunId;
  return scope;
}

function whole(value: number | undefined, fallback: number, field: string, min: number): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < min) {
    throw validationError(
      `ReportingBatchSpanProcessor: ${field} must be an integer >= ${min}, got ${String(value)}`,
      {
        field,
      },
    );
  }
  return resolved;
}
