import { type InvalidArgsPolicy, runText, tool } from "@tinyagents/harness";
import { runScript, type ScriptStep } from "@tinyagents/harness/testkit";
import { type JsonObject, text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { invalidArgsResponse, toolMessages } from "./helpers.js";

/** A tool with a real schema: `{ city: string }`, nothing else. */
function weather() {
  const seen: JsonObject[] = [];
  const t = tool({
    name: "weather",
    description: "Weather for a city",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
    execute: (args) => {
      seen.push(args);
      return `sunny in ${String(args.city)}`;
    },
  });
  return { tool: t, seen };
}

const call = (args: JsonObject): ScriptStep => ({
  toolCalls: [{ name: "weather", arguments: args, id: "w1" }],
});

function run(policy: InvalidArgsPolicy | undefined, first: ScriptStep, more: ScriptStep[] = ["final"]) {
  const w = weather();
  return runScript({
    script: [first, ...more],
    tools: [w.tool],
    ...(policy === undefined ? {} : { policy: { invalidArgs: policy } }),
  }).then((result) => ({ ...result, seen: w.seen }));
}

describe("invalid arguments policy", () => {
  it('"fail": the run fails with validation naming the tool and the problem', async () => {
    const { error, events, seen, status } = await run("fail", call({ town: "Oslo" }), []);
    expect(error?.code).toBe("validation");
    expect(error?.message).toContain('"weather"');
    expect(error?.message).toContain("city");
    expect(error?.details).toEqual({ tool: "weather", callId: "w1" });
    expect(seen).toEqual([]);
    expect(events.ofType("tool.invalid_args")).toEqual([
      {
        type: "tool.invalid_args",
        callId: "w1",
        toolName: "weather",
        error: expect.stringContaining("city"),
        recovery: "fail",
      },
    ]);
    expect(status.status).toBe("failed");
  });

  it('"returnError" (default): the model gets the schema problem and the loop continues', async () => {
    const { run: r, error, events, seen, model } = await run(undefined, call({ town: "Oslo" }));
    expect(error).toBeUndefined();
    expect(runText(r)).toBe("final");
    expect(seen).toEqual([]);
    const [result] = toolMessages(r.messages);
    expect(result?.isError).toBe(true);
    expect(text(result)).toContain("invalid arguments");
    expect(text(result)).toContain("city");
    expect(events.ofType("tool.invalid_args")[0]?.recovery).toBe("returnError");
    expect(model.requests[1]?.messages.at(-1)).toEqual(result);
    expect(r.toolCalls).toBe(1);
  });

  it('"returnError" does not repair an {"arguments": {...}} envelope', async () => {
    const { run: r, seen } = await run("returnError", call({ arguments: { city: "Oslo" } }));
    expect(seen).toEqual([]);
    expect(toolMessages(r.messages)[0]?.isError).toBe(true);
  });

  it('"normalizeThenReturnError" unwraps an {"arguments": {...}} envelope and runs the tool', async () => {
    const {
      run: r,
      error,
      events,
      seen,
      trajectory,
    } = await run("normalizeThenReturnError", call({ arguments: { city: "Oslo" } }));
    expect(error).toBeUndefined();
    expect(seen).toEqual([{ city: "Oslo" }]);
    const [result] = toolMessages(r.messages);
    expect(result?.isError).toBe(false);
    expect(text(result)).toBe("sunny in Oslo");
    expect(events.ofType("tool.invalid_args")).toEqual([
      {
        type: "tool.invalid_args",
        callId: "w1",
        toolName: "weather",
        error: expect.any(String),
        recovery: "normalized",
      },
    ]);
    trajectory.assertToolCalled("weather", { city: "Oslo" });
  });

  it('"normalizeThenReturnError" parses arguments given as a JSON string', async () => {
    const raw = JSON.stringify(JSON.stringify({ city: "Bergen" }));
    const {
      run: r,
      error,
      events,
      seen,
    } = await run("normalizeThenReturnError", invalidArgsResponse("w1", "weather", raw));
    expect(error).toBeUndefined();
    expect(seen).toEqual([{ city: "Bergen" }]);
    expect(toolMessages(r.messages)[0]?.isError).toBe(false);
    expect(events.ofType("tool.invalid_args")[0]?.recovery).toBe("normalized");
  });

  it('"normalizeThenReturnError" parses JSON inside markdown fences', async () => {
    const raw = '```json\n{"city": "Tromsø"}\n```';
    const { seen, error } = await run("normalizeThenReturnError", invalidArgsResponse("w1", "weather", raw));
    expect(error).toBeUndefined();
    expect(seen).toEqual([{ city: "Tromsø" }]);
  });

  it('"normalizeThenReturnError" falls back to a tool error when nothing can be repaired', async () => {
    const { run: r, error, events, seen } = await run("normalizeThenReturnError", call({ town: "Oslo" }));
    expect(error).toBeUndefined();
    expect(seen).toEqual([]);
    expect(toolMessages(r.messages)[0]?.isError).toBe(true);
    expect(events.ofType("tool.invalid_args")[0]?.recovery).toBe("returnError");
  });

  it("unparseable argument text is reported without running the tool", async () => {
    const {
      run: r,
      seen,
      events,
    } = await run("returnError", invalidArgsResponse("w1", "weather", '{"city": "Os'));
    expect(seen).toEqual([]);
    expect(text(toolMessages(r.messages)[0])).toContain("not valid JSON");
    expect(events.ofType("tool.invalid_args")[0]?.error).toContain("not valid JSON");
  });

  it("valid arguments run without any invalid-args event", async () => {
    const { seen, events } = await run("fail", call({ city: "Oslo" }));
    expect(seen).toEqual([{ city: "Oslo" }]);
    expect(events.ofType("tool.invalid_args")).toEqual([]);
  });
});
