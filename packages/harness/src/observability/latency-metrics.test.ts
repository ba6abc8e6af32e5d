import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { AgentObservation } from "./agent-observation.js";
import { AgentLatencyMetrics, summarizeLatencies } from "./latency-metrics.js";

let offset = 0;
const at = (ts: number, event: AgentEvent, runId = "r", depth = 0): AgentObservation => ({
  id: `r-evt-${offset}`,
  offset: offset++,
  ts,
  runId,
  rootRunId: "r",
  depth,
  event,
});
const completed = (callId: string, durationMs: number): AgentEvent => ({
  type: "model.completed",
  callId,
  model: "m",
  durationMs,
  toolCalls: 0,
  servedFromCache: false,
});
const started = (callId: string, attempt = 1): AgentEvent => ({
  type: "model.started",
  callId,
  model: "m",
  provider: "p",
  providerModelId: "p-m",
  attempt,
});
const delta = (callId: string): AgentEvent => ({
  type: "model.text_delta",
  callId,
  text: "x",
});
const tool = (callId: string, durationMs: number): AgentEvent => ({
  type: "tool.completed",
  callId,
  toolName: "t",
  durationMs,
  isError: false,
  outputBytes: 1,
});

describe("summarizeLatencies", () => {
  it("uses nearest-rank percentiles", () => {
    const d = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100
    expect(summarizeLatencies(d)).toEqual({
      count: 100,
      p50: 50,
      p90: 90,
      p99: 99,
      min: 1,
      max: 100,
      mean: 50.5,
    });
    expect(summarizeLatencies([7])).toEqual({ count: 1, p50: 7, p90: 7, p99: 7, min: 7, max: 7, mean: 7 });
    expect(summarizeLatencies([])).toEqual({ count: 0 });
  });
});

describe("AgentLatencyMetrics.fromRecords", () => {
  it("computes model and tool percentiles, time to first token and the total", () => {
    const records = [
      at(1000, { type: "run.started", input: 1 }),
      at(1000, started("m1")),
      at(1040, delta("m1")),
      at(1050, delta("m1")),
      at(1100, completed("m1", 100)),
      at(1100, tool("t1", 30)),
      at(1100, tool("t2", 10)),
      at(1130, { type: "run.started", input: 1 }, "child", 1),
      at(1130, started("m1"), "child", 1),
      at(1150, delta("m1"), "child", 1),
      at(1160, completed("m1", 30), "child", 1),
      at(
        1161,
        {
          type: "run.completed",
          modelCalls: 1,
          toolCalls: 0,
          usage: {} as never,
          cost: {} as never,
        },
        "child",
        1,
      ),
      at(1200, started("m2")),
      at(1250, {
        type: "model.failed",
        callId: "m2",
        model: "m",
        durationMs: 50,
        attempt: 1,
        error: { name: "E", code: "provider", message: "x" },
      }),
      at(1300, started("m2", 2)),
      at(1310, delta("m2")),
      at(1400, completed("m2", 100)),
      at(1500, {
        type: "run.completed",
        modelCalls: 3,
        toolCalls: 2,
        usage: {} as never,
        cost: {} as never,
      }),
    ];
    const metrics = AgentLatencyMetrics.fromRecords(records);
    expect(metrics.model).toEqual({ count: 4, p50: 50, p90: 100, p99: 100, min: 30, max: 100, mean: 70 });
    expect(metrics.tool).toMatchObject({ count: 2, p50: 10, p99: 30 });
    // m1: 40, child m1: 20, m2 attempt 1: none (failed before a delta), m2 attempt 2: 10.
    expect(metrics.timeToFirstToken).toMatchObject({ count: 3, p50: 20, max: 40, min: 10 });
    expect(metrics.totalMs).toBe(500);
    expect(JSON.parse(JSON.stringify(metrics)).totalMs).toBe(500);
    expect(AgentLatencyMetrics.fromRecords([]).totalMs).toBeUndefined();
  });
});
