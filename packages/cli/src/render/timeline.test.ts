import type { AgentEvent, AgentObservation } from "@tinyagents/harness";
import { describe, expect, it } from "vitest";
import { renderTimeline } from "./timeline.js";

const error = { name: "TinyAgentsError", code: "provider", message: "HTTP 503", retryable: true } as const;

/** Journal records of run `r` in offset order, at the given times (ms from 1_000_000). */
function journal(events: [number, AgentEvent][]): AgentObservation[] {
  return events.map(([at, event], offset) => ({
    id: `r-evt-${offset}`,
    offset,
    ts: 1_000_000 + at,
    runId: "r",
    rootRunId: "r",
    depth: 0,
    event,
  }));
}

const started = (attempt: number): AgentEvent =>
  ({
    type: "model.started",
    callId: "c1",
    model: "main",
    provider: "p",
    providerModelId: "m",
    attempt,
    messages: 1,
    tools: 0,
  }) as unknown as AgentEvent;

const failed = (attempt: number, durationMs: number): AgentEvent => ({
  type: "model.failed",
  callId: "c1",
  model: "main",
  durationMs,
  attempt,
  error,
});

const retry = (attempt: number, delayMs: number): AgentEvent => ({
  type: "retry.scheduled",
  callId: "c1",
  attempt,
  delayMs,
  error,
});

// A call retried after 4 failed attempts (true starts 15, 348, 783, 1,600 ms), then answered.
const retried = journal([
  [0, { type: "run.started", input: 1 } as AgentEvent],
  [15, started(1)],
  [40, failed(1, 25)],
  [40, retry(1, 300)],
  [348, started(2)],
  [380, failed(2, 32)],
  [380, retry(2, 400)],
  [783, started(3)],
  [800, failed(3, 17)],
  [800, retry(3, 800)],
  [1600, started(4)],
  [1650, failed(4, 50)],
  [1650, retry(4, 100)],
  [1750, started(5)],
  [
    1800,
    {
      type: "model.completed",
      callId: "c1",
      model: "main",
      durationMs: 50,
      toolCalls: 0,
      servedFromCache: false,
      finishReason: "stop",
    },
  ],
]);

/** The timeline's lines after the header, as [time, text]. */
function lines(text: string): string[] {
  return text
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => line.replace(/\s+/g, " ").trim());
}

describe("tinyagents show: a retried call's attempts", () => {
  it("each failed attempt at its own start, in journal order with the retries between them", () => {
    const out = lines(renderTimeline(retried));
    const attemptLines = out.filter((l) => l.includes("model call FAILED"));
    expect(attemptLines.map((l) => /^\+(\S+ \S+)/.exec(l)?.[1])).toEqual([
      "15 ms",
      "348 ms",
      "783 ms",
      "1.6 s",
    ]);
    const kinds = out.map((l) =>
      l.includes("FAILED")
        ? "failed"
        : l.includes("retry in")
          ? "retry"
          : l.includes("model call 1")
            ? "answer"
            : "run",
    );
    expect(kinds).toEqual([
      "run",
      "failed",
      "retry",
      "failed",
      "retry",
      "failed",
      "retry",
      "failed",
      "retry",
      "answer",
    ]);
    expect(out.at(-1)).toMatch(/^\+1\.8 s model call 1/);
  });

  it("records handed over out of order are put back in journal order", () => {
    const shuffled = [...retried].reverse();
    expect(renderTimeline(shuffled)).toBe(renderTimeline(retried));
  });
});
