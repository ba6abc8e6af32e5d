import { type Context, context, type Span, trace } from "@opentelemetry/api";
import type { Middleware } from "../middleware/middleware.js";
import type { SpanBook } from "./span-state.js";

/**
 * The key `trace.getSpan` reads from a context. The API keeps it private; asking a probe context
 * which key `getSpan` looks up finds it through the public API only.
 */
const SPAN_KEY: symbol = (() => {
  let key: symbol | undefined;
  const probe: Context = {
    getValue(asked) {
      key = asked;
      return undefined;
    },
    setValue: () => probe,
    deleteValue: () => probe,
  };
  trace.getSpan(probe);
  if (key === undefined) throw new Error("@opentelemetry/api: trace.getSpan did not read a context key");
  return key;
})();

/**
 * A context whose span is looked up when read: a model call's attempts (retries, fallbacks) each
 * open their own `chat` span inside one `wrapModelCall`, after it started, so the span a
 * provider's HTTP request nests under is the attempt open at the moment the request is made.
 * Writes (an instrumentation setting its own span) snapshot the current span first.
 */
class LiveSpanContext implements Context {
  constructor(
    private readonly base: Context,
    private readonly current: () => Span | undefined,
  ) {}

  getValue(key: symbol): unknown {
    if (key === SPAN_KEY) {
      const span = this.current();
      if (span !== undefined) return span;
    }
    return this.base.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return this.snapshot().setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return this.snapshot().deleteValue(key);
  }

  private snapshot(): Context {
    const span = this.current();
    return span === undefined ? this.base : trace.setSpan(this.base, span);
  }
}

/** See `OtelTracer.middleware`. */
export function propagationMiddleware(book: SpanBook): Middleware {
  return {
    name: "otelContext",
    wrapModelCall(ctx, request, next) {
      const runId = ctx.run.runId;
      const callId = ctx.callId;
      const live = new LiveSpanContext(context.active(), () => {
        const run = book.runs.get(runId);
        if (run === undefined) return undefined;
        return (callId === undefined ? undefined : run.chats.get(callId)?.span) ?? run.span;
      });
      return context.with(live, next, undefined, request);
    },
    wrapToolCall(ctx, call, next) {
      const run = book.runs.get(ctx.run.runId);
      const span = run?.tools.get(call.id) ?? run?.span;
      if (span === undefined) return next(call);
      return context.with(trace.setSpan(context.active(), span), next, undefined, call);
    },
  };
}
