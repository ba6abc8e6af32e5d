import { runText } from "@tinyagents/harness";
import { FakeTool, runScript } from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { assistants, tokens, toolMessages, transcript } from "./helpers.js";

describe("loop basics", () => {
  it("a text-only run makes one model call and returns its answer", async () => {
    const { run, status, error, events, trajectory, model } = await runScript({
      script: ["Hello there"],
      input: "hi",
      instructions: "Be brief.",
    });

    expect(error).toBeUndefined();
    expect(runText(run)).toBe("Hello there");
    expect(run.stopReason).toBe("completed");
    expect(run.modelCalls).toBe(1);
    expect(run.toolCalls).toBe(0);
    expect(run.runId).toBe("run-1");
    // The transcript has the input and the answer; the system prompt is sent but never stored.
    expect(transcript(run.messages)).toEqual(["user:hi", "assistant:Hello there"]);
    expect(run.inputStart).toBe(0);
    expect(model.requests).toHaveLength(1);
    expect(transcript(model.requests[0]?.messages ?? [])).toEqual(["system:Be brief.", "user:hi"]);
    expect(model.requests[0]?.tools).toBeUndefined();
    expect(run.steps).toEqual([
      { index: 0, callId: "run-1-model-1", model: "scripted", toolCallIds: [], finishReason: "stop" },
    ]);
    expect(run.resolvedModel).toMatchObject({ name: "scripted", source: "registry_default" });
    expect(status.status).toBe("completed");
    expect(events.types()).toEqual([
      "run.started",
      "route.selected",
      "model.started",
      "model.completed",
      "state.updated",
      "run.completed",
    ]);
    trajectory.assertCompleted();
    trajectory.assertModelCalledTimes(1);
    // The run is plain JSON data.
    expect(JSON.parse(JSON.stringify(run))).toEqual(run);
  });

  it("a multi-step tool run feeds each tool result back to the model", async () => {
    const search = FakeTool.returning("search", "Paris is the capital of France");
    const calc = FakeTool.of("calc", (args) => ({ result: Number(args.a) * 2 }));
    const { run, error, trajectory, model } = await runScript({
      script: [
        { toolCalls: [{ name: "search", arguments: { q: "capital of France" } }], usage: tokens(10, 2) },
        { toolCalls: [{ name: "calc", arguments: { a: 21 } }], usage: tokens(20, 3) },
        { ...finalAnswer("Paris; 42"), usage: tokens(30, 4) },
      ],
      tools: [search, calc],
      input: "question",
    });

    expect(error).toBeUndefined();
    expect(runText(run)).toBe("Paris; 42");
    expect(run.modelCalls).toBe(3);
    expect(run.toolCalls).toBe(2);
    expect(search.argsLog).toEqual([{ q: "capital of France" }]);
    expect(calc.argsLog).toEqual([{ a: 21 }]);
    expect(run.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    const results = toolMessages(run.messages);
    expect(results.map((m) => [m.toolCallId, m.toolName, m.isError])).toEqual([
      ["call-1", "search", false],
      ["call-2", "calc", false],
    ]);
    expect(results[1]?.content).toEqual([{ type: "json", value: { result: 42 } }]);
    // Each request carries everything so far, and the tool schemas in a stable order.
    expect(model.requests.map((r) => r.messages.length)).toEqual([1, 3, 5]);
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["calc", "search"]);
    expect(text(model.requests[1]?.messages[2])).toBe("Paris is the capital of France");
    // Usage is folded over every call.
    expect(run.usage.calls).toBe(3);
    expect(run.usage).toMatchObject({ inputTokens: 60, outputTokens: 9, totalTokens: 69 });
    expect(run.steps.map((s) => s.toolCallIds)).toEqual([["call-1"], ["call-2"], []]);
    trajectory.assertOrder(["tool:search", "tool.completed", "tool:calc", "tool.completed", "run.completed"]);
    trajectory.assertToolCalled("search", { q: "capital of France" });
    trajectory.assertModelCalledTimes(3);
    model.assertConsumed();
  });

  it("a tool that throws becomes an error result by default and the loop continues", async () => {
    const broken = FakeTool.failing("broken", "disk on fire");
    const { run, error, events } = await runScript({
      script: [{ toolCalls: [{ name: "broken" }] }, "recovered"],
      tools: [broken],
    });

    expect(error).toBeUndefined();
    expect(runText(run)).toBe("recovered");
    const [result] = toolMessages(run.messages);
    expect(result?.isError).toBe(true);
    expect(text(result)).toContain("disk on fire");
    expect(events.ofType("tool.failed")).toHaveLength(1);
    expect(events.ofType("tool.failed")[0]?.error.message).toContain("disk on fire");
  });

  it('errorPolicy "fail" fails the run with code "tool", keeping the partial transcript', async () => {
    const broken = FakeTool.failing("broken", "disk on fire", { errorPolicy: "fail" });
    const { run, error, status, trajectory, model } = await runScript({
      script: [{ toolCalls: [{ name: "broken" }] }, "never reached"],
      tools: [broken],
    });

    expect(error?.code).toBe("tool");
    expect(error?.message).toContain("disk on fire");
    expect(error?.details).toMatchObject({ tool: "broken", callId: "call-1" });
    expect(model.callCount).toBe(1);
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(assistants(run.messages)[0]?.toolCalls.map((c) => c.name)).toEqual(["broken"]);
    expect(status.status).toBe("failed");
    expect(status.error?.code).toBe("tool");
    trajectory.assertFailed("tool");
  });

  it("errorPolicy { message } hides the tool's internals behind a fixed message", async () => {
    const broken = FakeTool.failing("broken", "secret stack trace", {
      errorPolicy: { message: "The service is unavailable." },
    });
    const { run, error } = await runScript({
      script: [{ toolCalls: [{ name: "broken" }] }, "ok"],
      tools: [broken],
    });

    expect(error).toBeUndefined();
    const [result] = toolMessages(run.messages);
    expect(result?.isError).toBe(true);
    expect(text(result)).toBe("The service is unavailable.");
  });

  it("a script left unconsumed or exhausted is visible, not silent", async () => {
    const { error, model } = await runScript({
      script: [{ toolCalls: [{ name: "lookup" }] }],
      tools: [FakeTool.returning("lookup", "x")],
    });
    // The model wanted a second turn the script does not have.
    expect(error?.code).toBe("validation");
    expect(error?.message).toContain("script exhausted");
    expect(model.callCount).toBe(1);
  });

  it("duplicate tool call ids across turns are re-keyed so results stay correlated", async () => {
    const echo = FakeTool.of("echo", (args) => String(args.n));
    const { run, error } = await runScript({
      script: [
        { toolCalls: [{ name: "echo", arguments: { n: 1 }, id: "call_0" }] },
        { toolCalls: [{ name: "echo", arguments: { n: 2 }, id: "call_0" }] },
        "done",
      ],
      tools: [echo],
    });

    expect(error).toBeUndefined();
    const ids = toolMessages(run.messages).map((m) => m.toolCallId);
    expect(new Set(ids).size).toBe(2);
    const calls = assistants(run.messages).flatMap((m) => m.toolCalls.map((c) => c.id));
    expect(calls.slice(0, 2)).toEqual(ids);
  });

  it("a tool call id repeated within one response is re-keyed", async () => {
    const echo = FakeTool.of("echo", (args) => String(args.n));
    const { run, error } = await runScript({
      script: [
        {
          toolCalls: [
            { name: "echo", arguments: { n: 1 }, id: "call_0" },
            { name: "echo", arguments: { n: 2 }, id: "call_0" },
          ],
        },
        "done",
      ],
      tools: [echo],
    });

    expect(error).toBeUndefined();
    const ids = toolMessages(run.messages).map((m) => m.toolCallId);
    expect(ids).toEqual(["call_0", "run-1-model-1-tool-1"]);
    expect(run.steps[0]?.toolCallIds).toEqual(ids);
  });

  it("a re-keyed id that the model already used gets a suffix until it is free", async () => {
    const echo = FakeTool.of("echo", (args) => String(args.n));
    // The model names both calls the way the loop re-keys a repeat: re-keying the second to
    // `run-1-model-1-tool-1` would repeat the id.
    const { run, error } = await runScript({
      script: [
        {
          toolCalls: [
            { name: "echo", arguments: { n: 1 }, id: "run-1-model-1-tool-1" },
            { name: "echo", arguments: { n: 2 }, id: "run-1-model-1-tool-1" },
          ],
        },
        "done",
      ],
      tools: [echo],
    });

    expect(error).toBeUndefined();
    const ids = toolMessages(run.messages).map((m) => m.toolCallId);
    expect(ids).toEqual(["run-1-model-1-tool-1", "run-1-model-1-tool-1-1"]);
    expect(run.steps[0]?.toolCallIds).toEqual(ids);
  });

  it("ids stay unique in a run with many tool calls (past the scanned few, ids are kept in a set)", async () => {
    const echo = FakeTool.of("echo", (args) => String(args.n));
    // 12 turns of 2 calls: the first turn's ids come back on turns 4 and 12 (and in between).
    const turns = Array.from({ length: 12 }, (_, t) => ({
      toolCalls: [
        { name: "echo", arguments: { n: 2 * t }, id: t % 4 === 3 || t === 11 ? "call_a" : `a${t}` },
        { name: "echo", arguments: { n: 2 * t + 1 }, id: t % 4 === 3 || t === 11 ? "call_b" : `b${t}` },
      ],
    }));
    turns[0] = {
      toolCalls: [
        { name: "echo", arguments: { n: 0 }, id: "call_a" },
        { name: "echo", arguments: { n: 1 }, id: "call_b" },
      ],
    };
    const { run, error } = await runScript({
      script: [...turns, "done"],
      tools: [echo],
      policy: { limits: { maxToolCalls: 100, maxModelCalls: 100 } },
    });

    expect(error).toBeUndefined();
    const ids = toolMessages(run.messages).map((m) => m.toolCallId);
    expect(ids).toHaveLength(24);
    expect(new Set(ids).size).toBe(24);
    // The repeats were re-keyed, the first use kept.
    expect(ids.slice(0, 2)).toEqual(["call_a", "call_b"]);
    expect(ids.slice(22)).toEqual(["run-1-model-12-tool-0", "run-1-model-12-tool-1"]);
    expect(run.steps.flatMap((step) => step.toolCallIds)).toEqual(ids);
  });
});

function finalAnswer(answer: string) {
  return {
    message: {
      role: "assistant" as const,
      content: [{ type: "text" as const, text: answer }],
      toolCalls: [],
    },
  };
}
