import type { AgentObservation, CostTotals } from "@tinyagents/harness";
import { formatArgs, formatCost, formatDuration, formatTimestamp, formatTokens } from "./format.js";

/** When an entry happened: the time and journal offset of the event that starts it. */
interface At {
  ts: number;
  offset: number;
}

interface Entry {
  ts: number;
  /** Journal offset of the starting event: orders entries with the same timestamp. */
  order: number;
  depth: number;
  text: string;
}

/**
 * A readable timeline of one run tree from its journal: every model call (model, duration, tokens,
 * cost, tool calls asked for) with the tool calls it led to (arguments, outcome, duration), nested
 * by sub-agent depth, plus retries, limits, steering and the outcome. Times are offsets from the
 * run's start. Streaming deltas are left out (`show --json` has everything).
 */
export function renderTimeline(given: readonly AgentObservation[]): string {
  // The journal's order: by offset (a reader may hand records over in another order).
  const observations = isByOffset(given) ? given : [...given].sort((a, b) => a.offset - b.offset);
  const first = observations[0];
  if (first === undefined) return "(no observations)\n";
  const t0 = first.ts;
  // The cost of each model call's attempt in flight (from its `cost.recorded`; an "essential"
  // journal has none: the attempt's end carries the same cost), cleared at each attempt's start,
  // so an attempt shows its own cost, never an earlier attempt's.
  const costs = new Map<string, CostTotals>();
  const starts = new Map<string, At>();
  const toolArgs = new Map<string, unknown>();
  for (const o of observations) {
    const e = o.event;
    if (e.type === "tool.started") {
      starts.set(`${o.runId}/tool/${e.callId}`, o);
      toolArgs.set(`${o.runId}/${e.callId}`, e.arguments);
    }
  }
  const entries: Entry[] = [];
  // The start of each model call's attempt in flight: a retried call has one per attempt, and
  // each failed attempt is placed at ITS start (not the first attempt's), so retries read in order.
  const attemptStarts = new Map<string, At>();
  let modelCall = 0;
  // Entries are placed at their starting event (a tool line at `tool.started`, not where it
  // completed), so ties on the millisecond are broken by that event's journal offset.
  const add = (at: At, depth: number, text: string) =>
    entries.push({ ts: at.ts, order: at.offset, depth, text });
  let header = `run ${first.rootRunId}`;
  for (const o of observations) {
    const e = o.event;
    const d = o.depth;
    switch (e.type) {
      case "model.started":
        attemptStarts.set(`${o.runId}/${e.callId}`, o);
        costs.delete(`${o.runId}/${e.callId}`);
        break;
      case "cost.recorded":
        costs.set(`${o.runId}/${e.callId}`, e.cost);
        break;
      case "run.started":
        if (d === 0)
          header += `${e.threadId === undefined ? "" : ` · thread ${e.threadId}`} · started ${formatTimestamp(o.ts)}`;
        add(
          o,
          d,
          `${d === 0 ? "run" : `sub-agent run ${o.runId}`} started (${e.input} input message${e.input === 1 ? "" : "s"})`,
        );
        break;
      case "memory.loaded":
        add(
          o,
          d,
          `memory: loaded ${e.messages} earlier message${e.messages === 1 ? "" : "s"} of thread ${e.threadId}`,
        );
        break;
      case "model.completed": {
        modelCall++;
        const cost = e.cost ?? costs.get(`${o.runId}/${e.callId}`);
        const parts = [
          `model call ${modelCall}`,
          e.model,
          formatDuration(e.durationMs),
          e.usage === undefined ? "no usage reported" : formatTokens(e.usage),
          // A cache hit is not billed: free, not unknown.
          cost !== undefined ? formatCost(cost) : e.servedFromCache ? "not billed" : "cost unknown",
          e.toolCalls > 0
            ? `-> ${e.toolCalls} tool call${e.toolCalls === 1 ? "" : "s"}`
            : `-> ${e.finishReason ?? "answer"}`,
        ];
        if (e.servedFromCache) parts.push("(from cache)");
        add(
          attemptStarts.get(`${o.runId}/${e.callId}`) ?? { ts: o.ts - e.durationMs, offset: o.offset },
          d,
          parts.join(" · "),
        );
        break;
      }
      case "model.failed":
        add(
          attemptStarts.get(`${o.runId}/${e.callId}`) ?? { ts: o.ts - e.durationMs, offset: o.offset },
          d,
          `model call FAILED · ${e.model} · attempt ${e.attempt} · ${formatDuration(e.durationMs)} · ${e.error.message}`,
        );
        break;
      case "tool.completed":
      case "tool.failed": {
        const args = formatArgs(toolArgs.get(`${o.runId}/${e.callId}`) ?? {}, 160);
        const outcome =
          e.type === "tool.failed" ? `FAILED: ${e.error.message}` : e.isError ? "error result" : "ok";
        const size = e.type === "tool.completed" ? ` · ${e.outputBytes} B` : "";
        add(
          starts.get(`${o.runId}/tool/${e.callId}`) ?? { ts: o.ts - e.durationMs, offset: o.offset },
          d + 1,
          `tool ${e.toolName} ${args} · ${outcome} · ${formatDuration(e.durationMs)}${size}`,
        );
        break;
      }
      case "tool.invalid_args":
        add(o, d + 1, `tool ${e.toolName}: invalid arguments (${e.error}) -> ${e.recovery}`);
        break;
      case "tool.unknown":
        add(o, d + 1, `unknown tool "${e.toolName}" -> ${e.recovery}`);
        break;
      case "retry.scheduled":
        add(o, d, `retry in ${formatDuration(e.delayMs)} (attempt ${e.attempt}): ${e.error.message}`);
        break;
      case "fallback.selected":
        add(o, d, `fallback ${e.from} -> ${e.to}: ${e.error.message}`);
        break;
      case "subagent.started":
        add(o, d + 1, `sub-agent ${e.name} started (run ${e.childRunId})`);
        break;
      case "subagent.completed":
        add(o, d + 1, `sub-agent ${e.name} completed · ${formatTokens(e.usage)} · ${formatCost(e.cost)}`);
        break;
      case "subagent.failed":
        add(o, d + 1, `sub-agent ${e.name} FAILED: ${e.error.message}`);
        break;
      case "limit.reached":
        add(o, d, `limit reached: ${e.limit} (${e.count}/${e.value})`);
        break;
      case "steering.applied":
        add(o, d, `steering: ${e.command}${e.accepted ? "" : " (rejected)"}`);
        break;
      case "structured.reask":
        add(o, d, `structured output re-ask ${e.attempt}/${e.maxReasks}: ${e.issues.join("; ")}`);
        break;
      case "run.interrupted":
        add(o, d, `run interrupted: ${e.reason}`);
        break;
      case "run.completed":
        add(
          o,
          d,
          `${d === 0 ? "run" : "sub-agent run"} completed · ${e.modelCalls} model call${e.modelCalls === 1 ? "" : "s"} · ${e.toolCalls} tool call${e.toolCalls === 1 ? "" : "s"} · ${formatTokens(e.usage)} · ${formatCost(e.cost, e)}`,
        );
        break;
      case "run.failed":
        add(o, d, `${d === 0 ? "run" : "sub-agent run"} FAILED [${e.error.code}]: ${e.error.message}`);
        break;
      default:
        break;
    }
  }
  entries.sort((a, b) => a.ts - b.ts || a.order - b.order);
  const last = observations[observations.length - 1] as AgentObservation;
  const width = Math.max(...entries.map((x) => `+${formatDuration(x.ts - t0)}`.length), 6);
  const lines = entries.map(
    (x) => `${`+${formatDuration(x.ts - t0)}`.padEnd(width)}  ${"  ".repeat(x.depth)}${x.text}`,
  );
  return `${header} · ${formatDuration(last.ts - t0)} · ${observations.length} observations\n${lines.join("\n")}\n`;
}

function isByOffset(observations: readonly AgentObservation[]): boolean {
  for (let i = 1; i < observations.length; i++) {
    if ((observations[i] as AgentObservation).offset < (observations[i - 1] as AgentObservation).offset)
      return false;
  }
  return true;
}
