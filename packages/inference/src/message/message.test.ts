import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { assistant, reasoningText, system, text, toolCall, toolResult, user } from "./constructors.js";
import { everyKindTranscript } from "./message.fixture.js";

describe("messages", () => {
  it("survive a JSON round trip unchanged, every block kind included", () => {
    expect(JSON.parse(JSON.stringify(everyKindTranscript))).toStrictEqual(everyKindTranscript);
  });

  it("constructors build plain data", () => {
    expect(user("hi")).toStrictEqual({ role: "user", content: [{ type: "text", text: "hi" }] });
    expect(system("s")).toStrictEqual({ role: "system", content: [{ type: "text", text: "s" }] });
    const call = toolCall("c1", "add", { a: 1 });
    expect(assistant("ok", [call])).toStrictEqual({
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      toolCalls: [{ id: "c1", name: "add", arguments: { a: 1 } }],
    });
    expect(toolResult(call, "2")).toStrictEqual({
      role: "tool",
      toolCallId: "c1",
      toolName: "add",
      content: [{ type: "text", text: "2" }],
      isError: false,
    });
  });

  it("text() joins text blocks only; reasoningText() joins reasoning", () => {
    const m = assistant([
      { type: "reasoning", text: "r1" },
      { type: "text", text: "a" },
      { type: "json", value: 1 },
      { type: "text", text: "b" },
    ]);
    expect(text(m)).toBe("ab");
    expect(text(undefined)).toBe("");
    expect(reasoningText(m)).toBe("r1");
  });

  it("a tool call without an id is a validation error naming the field", () => {
    const error = (() => {
      try {
        toolCall("", "add");
      } catch (e) {
        return e;
      }
    })();
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect((error as TinyAgentsError).message).toContain("id");
    expect((error as TinyAgentsError).details).toStrictEqual({ field: "id" });
    expect(() => toolResult({ id: "", name: "x" }, "r")).toThrow(/call\.id/);
  });
});
