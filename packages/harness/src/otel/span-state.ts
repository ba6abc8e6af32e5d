import { type Attributes, type Context, type Span, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import type { ErrorSummary } from "@tinyagents/inference";
import { errorType, GEN_AI, httpStatus, TINYAGENTS_ATTR } from "./gen-ai-conventions.js";
import type { OtelListenerOptions } from "./otel-options.js";

/** A model-call attempt's open `chat` span. */
export interface ChatSpanState {
  span: Span;
  providerModelId: string;
  startedAt: number;
  /** Set at the first `model.*_delta` of the attempt. */
  firstChunkAt: number | undefined;
  /** Streamed answer text (only collected when content capture is on). */
  text: string;
}

/** A span whose call finished but whose `model.response` / `tool.result` details are still due. */
export interface SettlingSpan {
  span: Span;
  endTs: number;
}

/**
 * The open spans of one run: its `invoke_agent` span, the context that carries it (the
 * explicit parent of everything inside the run), open `chat` spans by call id, open
 * `execute_tool` spans by call id (in start order), and the ids of its open child runs.
 *
 * With `traceDetailsMiddleware` installed (`detailed`, set by the first `model.request`), a call's
 * span stays open after `model.completed` / `tool.completed` until its `model.response` /
 * `tool.result` arrives; it ends at the completion's time. Current journals carry those details on
 * the lifecycle records themselves; `separateTraceDetails` hands them over as the separate records
 * (right after the completion) that journals of earlier versions hold.
 */
export interface RunSpans {
  runId: string;
  parentRunId: string | undefined;
  span: Span;
  context: Context;
  providerSet: boolean;
  detailed: boolean;
  chats: Map<string, ChatSpanState>;
  tools: Map<string, Span>;
  /** `model.request` details by call id, applied to every attempt's chat span. */
  requests: Map<string, Attributes>;
  settlingChats: Map<string, SettlingSpan>;
  settlingTools: Map<string, SettlingSpan>;
  children: Set<string>;
}

/** What the span handlers share: the tracer, the options and the open runs by run id. */
export interface SpanBook {
  readonly tracer: Tracer;
  readonly options: OtelListenerOptions;
  readonly runs: Map<string, RunSpans>;
}

/**
 * The span a child run of `parent` nests under: the active span when it is one of the parent's
 * open tool spans (the propagation middleware runs each tool inside its span, so this is exact
 * with concurrent tools), else the parent's most recently started open tool span, else the
 * parent's run span. Without the middleware, with several tools running concurrently the newest
 * one is chosen: events do not say which tool spawned a child.
 */
export function spawningSpan(parent: RunSpans, active?: Span): Span {
  let newest: Span | undefined;
  for (const span of parent.tools.values()) {
    if (span === active) return span;
    newest = span;
  }
  return newest ?? parent.span;
}

/** How many spans `run` holds open (its own, its chat and tool spans). */
export function openSpanCount(run: RunSpans): number {
  return 1 + run.chats.size + run.tools.size + run.settlingChats.size + run.settlingTools.size;
}

/** Status ERROR, `error.type`, and an `exception` event (name and message only, never the cause). */
export function markFailed(span: Span, error: ErrorSummary, ts: number): void {
  const status = httpStatus(error);
  if (status !== undefined) span.setAttribute(GEN_AI.httpResponseStatusCode, status);
  span.setAttribute(GEN_AI.errorType, errorType(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.recordException({ name: error.name, message: error.message }, ts);
}

/** End a span its run outlived: marked incomplete, and failed when the run failed. */
export function endIncomplete(span: Span, ts: number, failure: ErrorSummary | undefined): void {
  span.setAttribute(TINYAGENTS_ATTR.incomplete, true);
  if (failure !== undefined) {
    span.setAttribute(GEN_AI.errorType, errorType(failure));
    span.setStatus({ code: SpanStatusCode.ERROR, message: `ended by the run's failure: ${failure.message}` });
  }
  span.end(ts);
}

/**
 * An event's fields as span-event attributes: scalars as-is, an error summary as `error.type` and
 * `error.message`, other structured values as JSON text only with content capture.
 */
export function eventAttributes(fields: Record<string, unknown>, captureContent: boolean): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (key === "error" && typeof value === "object" && value !== null) {
      const error = value as ErrorSummary;
      attributes[GEN_AI.errorType] = errorType(error);
      attributes["error.message"] = error.message;
    } else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      attributes[key] = value;
    } else if (captureContent) {
      attributes[key] = JSON.stringify(value);
    }
  }
  return attributes;
}
