import { tool } from "@tinyagents/harness";
import { runScript } from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";

const seen: unknown[] = [];
const double = tool({
  name: "double",
  description: "Double a number",
  inputSchema: {
    type: "object",
    properties: { n: { type: "number" } },
    required: ["n"],
    additionalProperties: false,
  },
  execute: (args) => {
    seen.push(args);
    return String((args.n as number) * 2);
  },
});

describe("wrapToolCall replacing arguments", () => {
  it("executes the tool with the replaced arguments when they are valid", async () => {
    seen.length = 0;
    const result = await runScript({
      script: [{ toolCalls: [{ name: "double", arguments: { n: 2 } }] }, "ok"],
      tools: [double],
      middleware: [
        { name: "rewrite", wrapToolCall: (_ctx, call, next) => next({ ...call, arguments: { n: 21 } }) },
      ],
    });
    expect(seen).toEqual([{ n: 21 }]);
    expect(text(result.run.messages.find((m) => m.role === "tool"))).toBe("42");
  });

  it("re-validates replaced arguments and answers with an error instead of executing", async () => {
    seen.length = 0;
    const result = await runScript({
      script: [{ toolCalls: [{ name: "double", arguments: { n: 2 } }] }, "ok"],
      tools: [double],
      middleware: [
        { name: "breaker", wrapToolCall: (_ctx, call, next) => next({ ...call, arguments: { n: "two" } }) },
      ],
    });
    const toolMessage = result.run.messages.find((m) => m.role === "tool");
    expect(seen).toEqual([]);
    expect(toolMessage?.role === "tool" && toolMessage.isError).toBe(true);
    expect(text(toolMessage)).toContain('invalid arguments for tool "double"');
  });
});
