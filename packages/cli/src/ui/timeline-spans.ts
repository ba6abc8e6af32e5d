import type { AgentObservation } from "@tinyagents/harness";
import { formatCount, formatDuration } from "../figures/figures.js";
import type { SpanView } from "./view-types.js";

/**
 * The Gantt bars of a run tree from its journal: the root run and each sub-agent run, every model
 * call attempt (a retried or fallen-back call is several attempts under one call id) with its
 * time to first token when it streamed, every tool call, the waits between retries, fallbacks,
 * approval requests (open until the run resumes: the decision) and the pauses of a resumed run. Times are ms from the first observation; bars still open end at the last one
 * and say `running`.
 */
export function timelineSpans(observations: readonly AgentObservation[]): SpanView[] {
  const first = observations[0];
  if (first === undefined) return [];
  const t0 = first.ts;
  const lastTs = (observations.at(-1) ?? first).ts - t0;
  const spans: SpanView[] = [];
  const open = new Map<string, SpanView>();
  const names = new Map<string, string>();
  /** When each run last paused (`run.interrupted`), until it resumes. */
  const interruptedAt = new Map<string, number>();
  let n = 0;
  const add = (key: string, span: Omit<SpanView, "id">): SpanView => {
    const full = { id: `s${n++}`, ...span };
    spans.push(full);
    if (key !== "") open.set(key, full);
    return full;
  };
  const close = (key: string, end: number, status: "ok" | "error", detail?: string) => {
    const span = open.get(key);
    if (span === undefined) return;
    span.end = Math.max(span.start, end);
    span.status = status;
    if (detail !== undefined) span.detail = detail;
    open.delete(key);
  };
  for (const o of observations) {
    const e = o.event;
    const at = o.ts - t0;
    const run = o.runId;
    switch (e.type) {
      case "subagent.started":
        names.set(e.childRunId, e.name);
        break;
      case "run.started": {
        // A resumed run starts again under the same id (after `run.interrupted`): the pause in
        // between is a span of its own, and the approvals it waited for were decided now.
        const again = spans.some((s) => s.runId === run && (s.kind === "run" || s.kind === "subagent"));
        const pausedAt = interruptedAt.get(run);
        if (pausedAt !== undefined) {
          interruptedAt.delete(run);
          add("", {
            kind: "paused",
            label: "paused",
            runId: run,
            depth: o.depth,
            start: pausedAt,
            end: at,
            status: "ok",
            detail: `paused ${formatDuration(at - pausedAt)}`,
          });
        }
        for (const [key, span] of open) {
          if (span.kind !== "approval" || span.runId !== run) continue;
          span.end = Math.max(span.start, at);
          span.status = "ok";
          span.detail = `${span.detail ?? ""} · decided`.replace(/^ · /, "");
          open.delete(key);
        }
        const name = o.depth === 0 ? "run" : `sub-agent ${names.get(run) ?? run}`;
        add(`run/${run}`, {
          kind: o.depth === 0 ? "run" : "subagent",
          label: again ? `${name} (resumed)` : name,
          runId: run,
          depth: o.depth,
          start: at,
          end: at,
          status: "running",
        });
        break;
      }
      case "run.completed":
        close(`run/${run}`, at, "ok");
        break;
      case "run.failed":
        close(`run/${run}`, at, "error", `[${e.error.code}] ${e.error.message}`);
        break;
      case "run.interrupted":
        close(`run/${run}`, at, "ok", `interrupted: ${e.reason}`);
        interruptedAt.set(run, at);
        break;
      case "model.started":
        add(`model/${run}/${e.callId}`, {
          kind: "model",
          label: `${e.model}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ""}`,
          runId: run,
          depth: o.depth + 1,
          start: at,
          end: at,
          status: "running",
        });
        break;
      case "model.text_delta":
      case "model.reasoning_delta":
      case "model.tool_call_delta": {
        const span = open.get(`model/${run}/${e.callId}`);
        if (span !== undefined && span.ttftMs === undefined) span.ttftMs = at - span.start;
        break;
      }
      case "model.completed": {
        // Time to first token only for a call that streamed: not for one served from a cache, nor
        // for a whole response replayed as deltas at its end (a model without streaming, under
        // a streaming run): its "first token" is its last.
        const span = open.get(`model/${run}/${e.callId}`);
        if (span?.ttftMs !== undefined && (e.servedFromCache || span.start + span.ttftMs >= at))
          delete span.ttftMs;
        close(
          `model/${run}/${e.callId}`,
          at,
          "ok",
          `${e.usage === undefined ? "no usage reported" : `${formatCount(e.usage.inputTokens)} in / ${formatCount(e.usage.outputTokens)} out`}${e.servedFromCache ? " · from cache" : ""}`,
        );
        break;
      }
      case "model.failed":
        close(`model/${run}/${e.callId}`, at, "error", `[${e.error.code}] ${e.error.message}`);
        break;
      case "tool.started":
        add(`tool/${run}/${e.callId}`, {
          kind: "tool",
          label: e.toolName,
          runId: run,
          depth: o.depth + 1,
          start: at,
          end: at,
          status: "running",
        });
        break;
      case "tool.completed":
        close(`tool/${run}/${e.callId}`, at, e.isError ? "error" : "ok", `${e.outputBytes} B`);
        break;
      case "tool.failed":
        close(`tool/${run}/${e.callId}`, at, "error", `[${e.error.code}] ${e.error.message}`);
        break;
      case "retry.scheduled":
        add("", {
          kind: "retry",
          label: `retry (attempt ${e.attempt})`,
          runId: run,
          depth: o.depth + 1,
          start: at,
          end: at + e.delayMs,
          status: "ok",
          detail: `wait ${e.delayMs} ms after [${e.error.code}] ${e.error.message}`,
        });
        break;
      case "fallback.selected":
        add("", {
          kind: "fallback",
          label: `fallback ${e.from} → ${e.to}`,
          runId: run,
          depth: o.depth + 1,
          start: at,
          end: at,
          status: "ok",
          detail: `[${e.error.code}] ${e.error.message}`,
        });
        break;
      case "approval.requested":
        add(`approval/${run}/${e.approvalId}`, {
          kind: "approval",
          label: `approval requested: ${e.toolName}`,
          runId: run,
          depth: o.depth + 1,
          start: at,
          end: at,
          status: "running",
          detail: e.approvalId,
        });
        break;
      default:
        break;
    }
  }
  for (const span of open.values()) span.end = Math.max(span.start, lastTs);
  return spans;
}
