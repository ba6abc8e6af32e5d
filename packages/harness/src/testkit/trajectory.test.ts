import { emptyUsageTotals } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentEventOf, EventRecord } from "../contracts/agent-event.js";
import { emptyCost } from "../cost/cost.js";
import { Trajectory, TrajectoryAssertionError } from "./trajectory.js";

function records(events: AgentEvent[], runId = "run-1", depth = 0, from = 0): EventRecord[] {
  return events.map((event, i) => ({
    id: `run-1-evt-${from + i}`,
    offset: from + i,
    ts: 1_700_000_000_000 + from + i,
    runId,
    rootRunId: "run-1",
    depth,
    event,
  }));
}

const modelCall = (callId: string, attempt = 1): AgentEvent => ({
  type: "model.started",
  callId,
  model: "scripted",
  provider: "scripted",
  providerModelId: "scripted",
  attempt,
});
const toolStart = (
  callId: string,
  toolName: string,
  args: AgentEventOf<"tool.started">["arguments"],
): AgentEvent => ({
  type: "tool.started",
  callId,
  toolName,
  arguments: args,
});
const toolDone = (callId: string, toolName: string, isError = false): AgentEvent => ({
  type: "tool.completed",
  callId,
  toolName,
  durationMs: 1,
  isError,
  outputBytes: 2,
});
const completed: AgentEvent = {
  type: "run.completed",
  modelCalls: 2,
  toolCalls: 2,
  usage: emptyUsageTotals(),
  cost: emptyCost(),
};

/** A two-step tool run: model -> search + fetch -> model -> final answer. */
const toolRun = records([
  { type: "run.started", input: 1 },
  modelCall("m-1"),
  { type: "model.text_delta", callId: "m-1", text: "a" },
  { type: "model.text_delta", callId: "m-1", text: "b" },
  toolStart("call-1", "search", { query: "weather", filters: { city: "Oslo", days: [1, 2] } }),
  toolStart("call-2", "fetch", { url: "https://example.com" }),
  toolDone("call-1", "search"),
  toolDone("call-2", "fetch", true),
  modelCall("m-2"),
  {
    type: "retry.scheduled",
    callId: "m-2",
    attempt: 1,
    delayMs: 100,
    error: { name: "E", code: "provider", message: "x" },
  },
  modelCall("m-2", 2),
  completed,
]);

function failure(fn: () => unknown): TrajectoryAssertionError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TrajectoryAssertionError) return error;
    throw error;
  }
  throw new Error("expected the assertion to fail");
}

describe("Trajectory tool calls", () => {
  const t = Trajectory.from(toolRun);

  it("lists tool calls from tool.started", () => {
    expect(t.toolCalls()).toEqual([
      {
        name: "search",
        arguments: { query: "weather", filters: { city: "Oslo", days: [1, 2] } },
        callId: "call-1",
        runId: "run-1",
      },
      { name: "fetch", arguments: { url: "https://example.com" }, callId: "call-2", runId: "run-1" },
    ]);
    expect(t.toolCallCount()).toBe(2);
    expect(t.toolCallCount("search")).toBe(1);
    expect(t.toolCallCount("nope")).toBe(0);
  });

  it("assertToolCalled passes by name, partial deep match and predicate, returning the call", () => {
    expect(t.assertToolCalled("search").callId).toBe("call-1");
    expect(t.assertToolCalled("search", { filters: { city: "Oslo" } }).callId).toBe("call-1");
    expect(t.assertToolCalled("search", { filters: { days: [1, 2] } }).callId).toBe("call-1");
    expect(t.assertToolCalled("fetch", (args) => String(args.url).startsWith("https:")).callId).toBe(
      "call-2",
    );
  });

  it("assertToolCalled fails with the tools that were called", () => {
    const error = failure(() => t.assertToolCalled("delete_file"));
    expect(error.name).toBe("AssertionError");
    expect(error.message).toContain(
      'expected tool "delete_file" to be called, but it never was (tools called: search, fetch)',
    );
    expect(error.message).toContain(
      "Actual events: run.started → model.started → model.text_delta ×2 → tool:search",
    );
  });

  it("assertToolCalled fails on mismatched arguments, showing each call's arguments", () => {
    const error = failure(() => t.assertToolCalled("search", { filters: { city: "Bergen" } }));
    expect(error.message).toContain(
      'expected tool "search" to be called with arguments matching {"filters":{"city":"Bergen"}}',
    );
    expect(error.message).toContain('call-1: {"query":"weather","filters":{"city":"Oslo","days":[1,2]}}');
    expect(failure(() => t.assertToolCalled("search", { filters: { days: [1] } })).message).toContain(
      "matching",
    );
    expect(failure(() => t.assertToolCalled("fetch", () => false)).message).toContain(
      "matching the predicate",
    );
  });

  it("assertToolNotCalled and assertToolCalledTimes", () => {
    t.assertToolNotCalled("delete_file");
    t.assertToolCalledTimes("search", 1);
    expect(failure(() => t.assertToolNotCalled("search")).message).toContain(
      'expected tool "search" not to be called, but it was called 1 time(s) (call-1)',
    );
    expect(failure(() => t.assertToolCalledTimes("search", 2)).message).toContain(
      "called 2 time(s), but it was called 1",
    );
  });

  it("reports an empty trajectory clearly", () => {
    const error = failure(() => Trajectory.from([]).assertToolCalled("search"));
    expect(error.message).toContain("no tool was called");
    expect(error.actualSequence).toBe("(no events)");
  });
});

describe("Trajectory model calls", () => {
  const t = Trajectory.from(toolRun);

  it("counts logical calls, not retries", () => {
    expect(t.modelCallCount()).toBe(2);
    expect(t.modelAttemptCount()).toBe(3);
    t.assertModelCalledTimes(2);
  });

  it("assertModelCalledTimes fails with counts and attempts", () => {
    const error = failure(() => t.assertModelCalledTimes(1));
    expect(error.message).toContain(
      "expected 1 model call(s), but there were 2 (3 attempts including retries/fallbacks)",
    );
    expect(error.message).toContain("model.started(attempt 2)");
  });
});

describe("Trajectory.assertOrder", () => {
  const t = Trajectory.from(toolRun);

  it("matches a subsequence of event types, tool names and tool:<name> labels", () => {
    t.assertOrder([
      "run.started",
      "search",
      "tool:fetch",
      "tool.completed",
      "model.started",
      "run.completed",
    ]);
    t.assertOrder([]);
    t.assertOrder(["search", "fetch"]);
  });

  it("fails when the order differs, naming what was matched", () => {
    const error = failure(() => t.assertOrder(["fetch", "search"]));
    expect(error.message).toContain('expected order fetch → search, but found no "search" after fetch');
    expect(error.message).toContain(
      "tool:search → tool:fetch → tool.completed(search) → tool.completed(fetch, error)",
    );
  });

  it("fails when a label never occurs", () => {
    const error = failure(() => t.assertOrder(["run.failed"]));
    expect(error.message).toContain('expected order run.failed, but found no "run.failed"\n');
  });
});

describe("Trajectory run outcome", () => {
  it("assertCompleted returns the run.completed event", () => {
    expect(Trajectory.from(toolRun).assertCompleted().toolCalls).toBe(2);
  });

  it("assertFailed checks the error code", () => {
    const failed = Trajectory.from(
      records([
        { type: "run.started", input: 1 },
        { type: "limit.reached", limit: "model_calls", value: 1, count: 2 },
        {
          type: "run.failed",
          error: { name: "TinyAgentsError", code: "limit_exceeded", message: "limit exceeded" },
        },
      ]),
    );
    expect(failed.assertFailed().error.code).toBe("limit_exceeded");
    failed.assertFailed("limit_exceeded");
    expect(failure(() => failed.assertFailed("timeout")).message).toContain(
      'expected the run to fail with "timeout", but it failed with "limit_exceeded": limit exceeded',
    );
    const error = failure(() => failed.assertCompleted());
    expect(error.message).toContain('expected the run to complete, but it failed with "limit_exceeded"');
    expect(error.message).toContain("limit.reached(model_calls) → run.failed(limit_exceeded)");
  });

  it("assertFailed fails on a completed or unfinished run", () => {
    expect(failure(() => Trajectory.from(toolRun).assertFailed("timeout")).message).toContain(
      'expected the run to fail with "timeout", but it completed',
    );
    const unfinished = Trajectory.from(records([{ type: "run.started", input: 1 }]));
    expect(failure(() => unfinished.assertCompleted()).message).toContain("has no run.completed/run.failed");
    const interrupted = Trajectory.from(records([{ type: "run.interrupted", reason: "paused" }]));
    expect(failure(() => interrupted.assertFailed()).message).toContain("it was interrupted: paused");
  });

  it("judges the root run, not a sub-run that failed", () => {
    const tree = [
      ...records([{ type: "run.started", input: 1 }, toolStart("call-1", "delegate", {})]),
      ...records(
        [
          { type: "run.started", input: 1 },
          toolStart("call-9", "search", {}),
          { type: "run.failed", error: { name: "TinyAgentsError", code: "timeout", message: "slow" } },
        ],
        "run-2",
        1,
        2,
      ),
      ...records([completed], "run-1", 0, 5),
    ];
    const t = Trajectory.from(tree);
    t.assertCompleted();
    expect(t.toolCallCount()).toBe(2);
    expect(t.forRun("run-1").toolCallCount()).toBe(1);
    t.forRun("run-2").assertFailed("timeout");
    expect(t.describe()).toContain("tool:search@d1 → run.failed(timeout)@d1 → run.completed");
  });
});

describe("Trajectory.describe", () => {
  it("collapses repeats and elides very long sequences", () => {
    const many = records(
      Array.from({ length: 100 }, (_, i): AgentEvent => toolStart(`c-${i}`, `tool_${i}`, {})),
    );
    const text = Trajectory.from(many).describe();
    expect(text).toContain("tool:tool_0 → tool:tool_1");
    expect(text).toContain("... 40 more ...");
    expect(text).toContain("tool:tool_99");
  });

  it("is a snapshot: records appended later are not seen", () => {
    const list = records([{ type: "run.started", input: 1 }]);
    const t = Trajectory.from(list);
    list.push(...records([completed], "run-1", 0, 1));
    expect(t.labels()).toEqual(["run.started"]);
  });
});
