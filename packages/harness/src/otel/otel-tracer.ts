import {
  type Attributes,
  type Context,
  context as otelContext,
  type Span,
  SpanKind,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { ErrorSummary, JsonValue } from "@tinyagents/inference";
import type { AgentEventOf, EventRecord } from "../contracts/agent-event.js";
import type { EventListener, EventSink } from "../events/event-sink.js";
import type { Middleware } from "../middleware/middleware.js";
import type { AgentObservation } from "../observability/agent-observation.js";
import { ContentCaptureCheck } from "../observability/content-capture-check.js";
import { Redactor } from "../observability/redaction.js";
import type { ObservationSink } from "../observability/sink.js";
import { separateTraceDetails } from "../observability/trace-details-records.js";
import {
  chatChunk,
  chatCost,
  chatRequest,
  chatResponse,
  completeChat,
  completeTool,
  failChat,
  failTool,
  startChat,
  startTool,
  toolProgress,
  toolResult,
} from "./call-spans.js";
import {
  agentSpanName,
  GEN_AI,
  resolveAgentName,
  runUsageAttributes,
  TINYAGENTS_ATTR,
} from "./gen-ai-conventions.js";
import type { OtelListenerOptions } from "./otel-options.js";
import { propagationMiddleware } from "./propagation-middleware.js";
import {
  endIncomplete,
  eventAttributes,
  markFailed,
  openSpanCount,
  type RunSpans,
  type SpanBook,
  spawningSpan,
} from "./span-state.js";

/**
 * Turns a live harness event stream into OpenTelemetry spans that follow the GenAI semantic
 * conventions:
 *
 * - `invoke_agent {agent}` (INTERNAL) per run, from `run.started` to `run.completed` /
 *   `run.failed` / `run.interrupted`, with its totals as `tinyagents.run.*` attributes;
 * - `chat {model}` (CLIENT) per model-call attempt (a retried call gives one span per attempt),
 *   with `gen_ai.request.model`, `gen_ai.response.model`, usage and cache token attributes;
 * - `execute_tool {name}` (INTERNAL) per executed tool call, with `gen_ai.tool.name` and
 *   `gen_ai.tool.call.id`.
 *
 * Parents are passed explicitly (never through async-local storage): chat and tool spans are
 * children of their run span; a child run (`record.parentRunId` set) nests under the parent
 * run's newest open tool span, or under the parent run span when no tool is open. Failures set
 * status ERROR and `error.type`. Start and end times are the records' `ts` (the run's clock).
 * Retries, fallbacks, limits and tool-call recoveries are span events on the run span.
 *
 * No span outlives its run: when a run ends, its still-open chat and tool spans and child runs
 * are ended with it (marked `tinyagents.incomplete`, and ERROR when the run failed). Events of
 * runs this tracer did not see start are ignored. Listener work is O(1) per event.
 *
 * ```ts
 * const otel = new OtelTracer(trace.getTracer("my-app"), { agentName: "support" });
 * const detach = otel.attach(sink); // the sink passed to agent.run(input, { events: sink })
 * ```
 */
export class OtelTracer implements ObservationSink {
  /** The listener to subscribe to an `EventSink` (`sink.subscribe(otel.listener)`); redacts first. */
  readonly listener: EventListener = (record) => this.handle(record);
  private readonly book: SpanBook;
  private readonly redactor: Redactor | undefined;
  private lastTs: number | undefined;
  /** Warns once when only one of the two content switches is on. */
  private readonly contentCheck: ContentCaptureCheck;

  constructor(tracer: Tracer, options: OtelListenerOptions = {}) {
    this.book = { tracer, options, runs: new Map() };
    this.contentCheck = new ContentCaptureCheck(
      "OtelTracer",
      options.captureContent === true,
      options.onContentWarning,
    );
    const redact = options.redact;
    this.redactor = redact === false ? undefined : redact instanceof Redactor ? redact : new Redactor(redact);
  }

  /**
   * `ObservationSink`: put the tracer in `attachObservability(events, { sinks: [otel] })` to get
   * the pipeline's redaction (pass `redact: false` here then, to scrub once).
   */
  write(observation: AgentObservation): void {
    this.handle(observation);
  }

  /**
   * Middleware that makes the trace's spans the active OpenTelemetry context while calls run:
   * a tool's `execute` (and a sub-agent it starts) runs inside its `execute_tool` span, a model
   * call's provider request inside the current attempt's `chat` span, so spans that instrumented
   * libraries create (HTTP clients, database drivers) nest under them. Needs a context manager
   * (`AsyncLocalStorageContextManager`, registered by the Node SDK). Register it first
   * (outermost) so every other middleware's work nests too.
   */
  middleware(): Middleware {
    return propagationMiddleware(this.book);
  }

  /**
   * Subscribe to `sink`; returns a function that unsubscribes (open spans stay open). With
   * `options.spanProcessor`, its drops are reported on `sink` while attached.
   */
  attach(sink: EventSink): () => void {
    const unsubscribe = sink.subscribe(this.listener);
    const detachReporting = this.book.options.spanProcessor?.attachReporting(sink, ignoreError);
    return () => {
      unsubscribe();
      detachReporting?.();
    };
  }

  /** `ObservationSink`: export what `options.spanProcessor` holds and report its drops (no-op without it). */
  async flush(): Promise<void> {
    await this.book.options.spanProcessor?.forceFlush();
  }

  /**
   * `ObservationSink`: called by `attachObservability` — report `options.spanProcessor`'s drops
   * on its event sink and to its `onError`.
   */
  attachReporting(events: EventSink, onError: (error: unknown) => void): () => void {
    return this.book.options.spanProcessor?.attachReporting(events, onError) ?? (() => {});
  }

  /**
   * `JSON.stringify(tracer)` / `util.inspect(tracer)`: what it is, never its options (a span
   * processor holds your exporter, whose headers may carry an API key).
   */
  toJSON(): { type: "OtelTracer"; captureContent: boolean; openSpans: number } {
    return {
      type: "OtelTracer",
      captureContent: this.book.options.captureContent === true,
      openSpans: this.openSpans,
    };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): object {
    return this.toJSON();
  }

  /** How many spans are open right now (0 once every observed run has ended). */
  get openSpans(): number {
    let count = 0;
    for (const run of this.book.runs.values()) count += openSpanCount(run);
    return count;
  }

  /**
   * End every open span (marked incomplete) at `endTime` (default: the last event's time, else
   * now). For shutdown, or after detaching from a sink whose runs will never finish.
   */
  endAll(endTime?: number): void {
    const ts = endTime ?? this.lastTs ?? Date.now();
    const runs = this.book.runs;
    for (const run of [...runs.values()]) {
      // Children are ended by their parent's endRun; start only from runs without an open parent.
      if (!runs.has(run.runId)) continue;
      if (run.parentRunId === undefined || !runs.has(run.parentRunId)) this.endRun(run, ts, undefined, true);
    }
  }

  /** Handle one event record (what {@link listener} does), after redaction unless `redact: false`. */
  handle(input: EventRecord): void {
    const record =
      this.redactor === undefined
        ? input
        : (this.redactor.redact(input as unknown as JsonValue) as unknown as EventRecord);
    this.lastTs = record.ts;
    // Trace details folded into a call's records are read as the separate records they replace.
    const separate = separateTraceDetails(record);
    if (separate === undefined) this.apply(record);
    else for (const part of separate) this.apply(part);
  }

  /** One record (trace details separate), in order. */
  private apply(record: EventRecord): void {
    const book = this.book;
    const event = record.event;
    switch (event.type) {
      case "run.started":
        this.startRun(record, event);
        break;
      case "model.started":
        startChat(book, record, event);
        break;
      case "model.request":
        this.contentCheck.request(event);
        chatRequest(book, record, event);
        break;
      case "model.response":
        chatResponse(book, record, event);
        break;
      case "tool.result":
        toolResult(book, record, event);
        break;
      case "model.text_delta":
      case "model.reasoning_delta":
      case "model.redacted_reasoning":
      case "model.tool_call_delta":
        chatChunk(book, record, event);
        break;
      case "cost.recorded":
        chatCost(book, record, event);
        break;
      case "model.completed":
        this.contentCheck.completed(book.runs.get(record.runId)?.detailed === true);
        completeChat(book, record, event);
        break;
      case "model.failed":
        failChat(book, record, event);
        break;
      case "tool.started":
        startTool(book, record, event);
        break;
      case "tool.progress":
        toolProgress(book, record, event);
        break;
      case "tool.completed":
        completeTool(book, record, event);
        break;
      case "tool.failed":
        failTool(book, record, event);
        break;
      case "retry.scheduled":
      case "fallback.selected":
      case "limit.reached":
      case "tool.unknown":
      case "tool.invalid_args":
      case "control.applied":
        this.runEvent(record);
        break;
      case "run.completed":
        this.completeRun(record, event);
        break;
      case "run.failed":
        this.failRun(record, event);
        break;
      case "run.interrupted":
        this.interruptRun(record, event);
        break;
      default:
        break;
    }
  }

  private startRun(record: EventRecord, event: AgentEventOf<"run.started">): void {
    const { runs, options, tracer } = this.book;
    if (runs.has(record.runId)) return;
    const parent = record.parentRunId === undefined ? undefined : runs.get(record.parentRunId);
    const parentContext =
      parent === undefined
        ? this.rootContext()
        : trace.setSpan(parent.context, spawningSpan(parent, activeSpan()));
    const agentName = resolveAgentName(options.agentName, {
      runId: record.runId,
      depth: record.depth,
      ...(record.parentRunId === undefined ? {} : { parentRunId: record.parentRunId }),
    });
    const attributes: Attributes = {
      ...options.runAttributes,
      [GEN_AI.operationName]: "invoke_agent",
      [TINYAGENTS_ATTR.runId]: record.runId,
      [TINYAGENTS_ATTR.rootRunId]: record.rootRunId,
      [TINYAGENTS_ATTR.depth]: record.depth,
    };
    if (agentName !== undefined) attributes[GEN_AI.agentName] = agentName;
    if (options.agentId !== undefined) attributes[GEN_AI.agentId] = options.agentId;
    if (options.agentDescription !== undefined)
      attributes[GEN_AI.agentDescription] = options.agentDescription;
    if (options.agentVersion !== undefined) attributes[GEN_AI.agentVersion] = options.agentVersion;
    if (record.parentRunId !== undefined) attributes[TINYAGENTS_ATTR.parentRunId] = record.parentRunId;
    if (event.threadId !== undefined) attributes[GEN_AI.conversationId] = event.threadId;
    const span = tracer.startSpan(
      agentSpanName(agentName),
      { kind: SpanKind.INTERNAL, startTime: record.ts, attributes },
      parentContext,
    );
    runs.set(record.runId, {
      runId: record.runId,
      parentRunId: record.parentRunId,
      span,
      context: trace.setSpan(parentContext, span),
      providerSet: false,
      detailed: false,
      chats: new Map(),
      tools: new Map(),
      requests: new Map(),
      settlingChats: new Map(),
      settlingTools: new Map(),
      children: new Set(),
    });
    parent?.children.add(record.runId);
  }

  private completeRun(record: EventRecord, event: AgentEventOf<"run.completed">): void {
    const run = this.book.runs.get(record.runId);
    if (run === undefined) return;
    run.span.setAttributes({
      ...runUsageAttributes(event.usage),
      [TINYAGENTS_ATTR.modelCalls]: event.modelCalls,
      [TINYAGENTS_ATTR.toolCalls]: event.toolCalls,
    });
    if (event.cost.total > 0) run.span.setAttribute(TINYAGENTS_ATTR.costTotalUsd, event.cost.total);
    this.endRun(run, record.ts, undefined, false);
  }

  private failRun(record: EventRecord, event: AgentEventOf<"run.failed">): void {
    const run = this.book.runs.get(record.runId);
    if (run === undefined) return;
    markFailed(run.span, event.error, record.ts);
    this.endRun(run, record.ts, event.error, false);
  }

  private interruptRun(record: EventRecord, event: AgentEventOf<"run.interrupted">): void {
    const run = this.book.runs.get(record.runId);
    if (run === undefined) return;
    run.span.addEvent("run.interrupted", { reason: event.reason }, record.ts);
    this.endRun(run, record.ts, undefined, false);
  }

  /** End a run's open child runs, chat and tool spans, then the run span itself. */
  private endRun(run: RunSpans, ts: number, failure: ErrorSummary | undefined, incomplete: boolean): void {
    const runs = this.book.runs;
    for (const childId of run.children) {
      const child = runs.get(childId);
      if (child !== undefined) this.endRun(child, ts, failure, true);
    }
    for (const chat of run.chats.values()) endIncomplete(chat.span, ts, failure);
    for (const tool of run.tools.values()) endIncomplete(tool, ts, failure);
    // Finished calls whose details never came (a call answered without running; in journals of
    // earlier versions also a trace details middleware that threw or was not innermost).
    for (const settling of run.settlingChats.values()) settling.span.end(settling.endTs);
    for (const settling of run.settlingTools.values()) settling.span.end(settling.endTs);
    run.chats.clear();
    run.tools.clear();
    run.requests.clear();
    run.settlingChats.clear();
    run.settlingTools.clear();
    if (incomplete) endIncomplete(run.span, ts, failure);
    else run.span.end(ts);
    runs.delete(run.runId);
    if (run.parentRunId !== undefined) runs.get(run.parentRunId)?.children.delete(run.runId);
  }

  private runEvent(record: EventRecord): void {
    const run = this.book.runs.get(record.runId);
    if (run === undefined) return;
    const { type, ...fields } = record.event;
    run.span.addEvent(type, eventAttributes(fields, this.book.options.captureContent === true), record.ts);
  }

  private rootContext(): Context {
    const parent = this.book.options.parentContext;
    if (parent === undefined) return otelContext.active();
    return typeof parent === "function" ? parent() : parent;
  }
}

/** The span of the active OpenTelemetry context (set by {@link OtelTracer.middleware}). */
function activeSpan(): Span | undefined {
  return trace.getSpan(otelContext.active());
}

/**
 * A listener that turns a live event stream into GenAI spans (see {@link OtelTracer}).
 *
 * ```ts
 * sink.subscribe(createOtelListener(trace.getTracer("my-app"), { agentName: "support" }));
 * ```
 */
export function createOtelListener(tracer: Tracer, options: OtelListenerOptions = {}): EventListener {
  return new OtelTracer(tracer, options).listener;
}

/** `attach(sink)` has no error callback: the `journal.dropped` event is the report there. */
function ignoreError(): void {}
