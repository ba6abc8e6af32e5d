import type { AgentObservation } from "./agent-observation.js";

/** Percentiles of a set of durations, in milliseconds (nearest-rank). Absent when `count` is 0. */
export interface LatencySummary {
  count: number;
  p50?: number;
  p90?: number;
  p99?: number;
  min?: number;
  max?: number;
  mean?: number;
}

/** Summarize durations: nearest-rank percentiles, min, max, mean. */
export function summarizeLatencies(durations: readonly number[]): LatencySummary {
  const n = durations.length;
  if (n === 0) return { count: 0 };
  const sorted = [...durations].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * n) - 1)] as number;
  return {
    count: n,
    p50: rank(50),
    p90: rank(90),
    p99: rank(99),
    min: sorted[0] as number,
    max: sorted[n - 1] as number,
    mean: sorted.reduce((sum, d) => sum + d, 0) / n,
  };
}

/**
 * Latency of a run (or run tree) computed from its observations:
 * - `model`: every model attempt's `durationMs` (`model.completed` and `model.failed`);
 * - `tool`: every tool call's `durationMs` (`tool.completed` and `tool.failed`);
 * - `timeToFirstToken`: per model attempt, `model.started` to its first `model.*_delta`
 *   (streaming only);
 * - `totalMs`: the top-most run's `run.started` to its terminal event, when both were seen.
 */
export class AgentLatencyMetrics {
  readonly model: LatencySummary;
  readonly tool: LatencySummary;
  readonly timeToFirstToken: LatencySummary;
  readonly totalMs: number | undefined;

  private constructor(
    model: LatencySummary,
    tool: LatencySummary,
    ttft: LatencySummary,
    totalMs: number | undefined,
  ) {
    this.model = model;
    this.tool = tool;
    this.timeToFirstToken = ttft;
    this.totalMs = totalMs;
  }

  /** Compute the metrics from observations in stream order (a journal read, a recorder's records). */
  static fromRecords(records: Iterable<AgentObservation>): AgentLatencyMetrics {
    const model: number[] = [];
    const tool: number[] = [];
    const ttft: number[] = [];
    /** `${runId} ${callId}` -> start of the attempt still waiting for its first delta. */
    const awaitingFirstDelta = new Map<string, number>();
    let top: { runId: string; depth: number; started: number } | undefined;
    let totalMs: number | undefined;
    for (const o of records) {
      const e = o.event;
      switch (e.type) {
        case "model.started":
          awaitingFirstDelta.set(`${o.runId} ${e.callId}`, o.ts);
          break;
        case "model.text_delta":
        case "model.reasoning_delta":
        case "model.redacted_reasoning":
        case "model.tool_call_delta": {
          const key = `${o.runId} ${e.callId}`;
          const started = awaitingFirstDelta.get(key);
          if (started !== undefined) {
            ttft.push(o.ts - started);
            awaitingFirstDelta.delete(key);
          }
          break;
        }
        case "model.completed":
        case "model.failed":
          model.push(e.durationMs);
          awaitingFirstDelta.delete(`${o.runId} ${e.callId}`);
          break;
        case "tool.completed":
        case "tool.failed":
          tool.push(e.durationMs);
          break;
        case "run.started":
          if (top === undefined || o.depth < top.depth) {
            top = { runId: o.runId, depth: o.depth, started: o.ts };
            totalMs = undefined;
          }
          break;
        case "run.completed":
        case "run.failed":
        case "run.interrupted":
          if (top !== undefined && o.runId === top.runId) totalMs = o.ts - top.started;
          break;
        default:
          break;
      }
    }
    return new AgentLatencyMetrics(
      summarizeLatencies(model),
      summarizeLatencies(tool),
      summarizeLatencies(ttft),
      totalMs,
    );
  }

  /** Plain JSON form. */
  toJSON(): {
    model: LatencySummary;
    tool: LatencySummary;
    timeToFirstToken: LatencySummary;
    totalMs?: number;
  } {
    const json = { model: this.model, tool: this.tool, timeToFirstToken: this.timeToFirstToken };
    return this.totalMs === undefined ? json : { ...json, totalMs: this.totalMs };
  }
}
