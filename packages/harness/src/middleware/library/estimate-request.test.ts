import {
  assistant,
  defaultTokenCounter,
  type Message,
  type ModelRequest,
  system,
  type ToolSchema,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { estimateRequestTokens } from "./estimate-request.js";

/** A JSON value whose serialization is counted (JSON.stringify calls its `toJSON`). */
function counted(value: object): { value: object; serialized: () => number } {
  let n = 0;
  return {
    value: {
      toJSON() {
        n++;
        return value;
      },
    },
    serialized: () => n,
  };
}

describe("estimateRequestTokens", () => {
  it("equals the default counter over the messages and the tool declarations", () => {
    const tool: ToolSchema = { name: "lookup", description: "Find a thing.", parameters: { type: "object" } };
    const call = assistant("", [{ id: "c1", name: "lookup", arguments: { q: "a long query" } }]);
    const request: ModelRequest = { messages: [system("Be brief."), user("hi"), call], tools: [tool] };
    const expected =
      defaultTokenCounter.countMessages(request.messages) + defaultTokenCounter.countTools([tool]);
    expect(estimateRequestTokens(request)).toBe(expected);
    // Remembered counts give the same answer on the next call.
    expect(estimateRequestTokens(request)).toBe(expected);
  });

  it("serializes each tool declaration and each history message once across the calls of a run", () => {
    const parameters = counted({ type: "object", properties: { q: { type: "string" } } });
    const tool = { name: "lookup", description: "d", parameters: parameters.value } as unknown as ToolSchema;
    const args = counted({ q: "x" });
    // Built by hand: the constructor would check that the arguments are plain JSON.
    const call: Message = {
      role: "assistant",
      content: [],
      toolCalls: [{ id: "c1", name: "lookup", arguments: args.value as Record<string, never> }],
    };
    const history: Message[] = [user("hi"), call];
    const first = estimateRequestTokens({ messages: history, tools: [tool] });
    // The next call: the same messages and tools (new arrays, as the loop builds them) and a new one.
    const second = estimateRequestTokens({ messages: [...history, user("more")], tools: [tool] });
    expect(parameters.serialized()).toBe(1);
    expect(args.serialized()).toBe(1);
    expect(second - first).toBe(defaultTokenCounter.countMessage(user("more")));
  });

  it("counts a system message as it is now: an edit in place is seen", () => {
    const instructions = system("short");
    const before = estimateRequestTokens({ messages: [instructions, user("q")] });
    (instructions.content[0] as { text: string }).text = "x".repeat(400);
    const after = estimateRequestTokens({ messages: [instructions, user("q")] });
    expect(after - before).toBe(100 - 2);
  });
});
