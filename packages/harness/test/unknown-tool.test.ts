import { runText } from "@tinyagents/harness";
import { FakeTool, runScript } from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { toolMessages } from "./helpers.js";

const script = [{ toolCalls: [{ name: "serch", arguments: { q: "x" }, id: "c1" }] }, "final"];

describe("unknown tool policy", () => {
  it('"fail": the run fails with tool_not_found naming the tool and the registered ones', async () => {
    const search = FakeTool.returning("search", "found");
    const { run, error, events, model, status } = await runScript({
      script: [script[0] as (typeof script)[0]],
      tools: [search, FakeTool.returning("calc", "1")],
      policy: { unknownTool: "fail" },
    });

    expect(error?.code).toBe("tool_not_found");
    expect(error?.message).toContain('"serch"');
    expect(error?.message).toContain("calc, search");
    expect(error?.details).toEqual({ tool: "serch", callId: "c1" });
    expect(events.ofType("tool.unknown")).toEqual([
      { type: "tool.unknown", callId: "c1", toolName: "serch", recovery: "fail" },
    ]);
    expect(search.callCount).toBe(0);
    expect(model.callCount).toBe(1);
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(status.status).toBe("failed");
    expect(events.types().at(-1)).toBe("run.failed");
  });

  it('"returnError" (the default): an error tool message, and the loop continues', async () => {
    const search = FakeTool.returning("search", "found");
    const { run, error, events, model } = await runScript({ script, tools: [search] });

    expect(error).toBeUndefined();
    expect(runText(run)).toBe("final");
    const [result] = toolMessages(run.messages);
    expect(result?.toolCallId).toBe("c1");
    expect(result?.toolName).toBe("serch");
    expect(result?.isError).toBe(true);
    expect(text(result)).toContain('unknown tool "serch"');
    expect(text(result)).toContain("search");
    expect(events.ofType("tool.unknown")).toEqual([
      { type: "tool.unknown", callId: "c1", toolName: "serch", recovery: "returnError" },
    ]);
    expect(search.callCount).toBe(0);
    // The model saw the error and could answer.
    expect(model.requests[1]?.messages.at(-1)).toEqual(result);
    expect(run.toolCalls).toBe(1);
  });

  it("{ rewrite } sends the call to the named tool", async () => {
    const search = FakeTool.of("search", (args) => `searched ${String(args.q)}`);
    const { run, error, events, trajectory } = await runScript({
      script,
      tools: [search],
      policy: { unknownTool: { rewrite: "search" } },
    });

    expect(error).toBeUndefined();
    expect(search.argsLog).toEqual([{ q: "x" }]);
    const [result] = toolMessages(run.messages);
    expect(result?.isError).toBe(false);
    expect(result?.toolCallId).toBe("c1");
    expect(text(result)).toBe("searched x");
    expect(events.ofType("tool.unknown")).toEqual([
      {
        type: "tool.unknown",
        callId: "c1",
        toolName: "serch",
        recovery: "rewrite",
        rewrittenTo: "search",
      },
    ]);
    trajectory.assertToolCalled("search", { q: "x" });
  });

  it("{ rewrite } to a tool that is not registered degrades to a tool error", async () => {
    const { run, error, events } = await runScript({
      script,
      tools: [FakeTool.returning("search", "found")],
      policy: { unknownTool: { rewrite: "missing" } },
    });
    expect(error).toBeUndefined();
    expect(toolMessages(run.messages)[0]?.isError).toBe(true);
    expect(events.ofType("tool.unknown")[0]?.recovery).toBe("returnError");
  });

  it("with no tools registered at all the error says so", async () => {
    const { run } = await runScript({ script });
    expect(text(toolMessages(run.messages)[0])).toContain("(none)");
  });
});
