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
import { estimateRequestTokens, RunRequestEstimator } from "./estimate-request.js";

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

  it("RunRequestEstimator answers as estimateRequestTokens over a run's calls, whatever changed between them", () => {
    const tool: ToolSchema = { name: "lookup", description: "Find a thing.", parameters: { type: "object" } };
    const other: ToolSchema = {
      name: "other",
      description: "Another thing to do.",
      parameters: { type: "object" },
    };
    const frozen = Object.freeze([tool]) as ToolSchema[];
    const loose: ToolSchema[] = [tool];
    const instructions = system("short");
    const call = assistant("", [{ id: "c1", name: "lookup", arguments: { q: "a long query" } }]);
    const requests: ModelRequest[] = [
      { messages: [instructions, user("hi")], tools: frozen },
      { messages: [instructions, user("hi"), call, user("and more")], tools: frozen },
      // A message replaced at the same position, the history cut, grown again.
      { messages: [instructions, user("hello there"), call, user("and more")], tools: frozen },
      { messages: [instructions, user("hi")], tools: frozen },
      { messages: [instructions, user("hi"), user("x".repeat(80))] },
      // Another (unfrozen) tool list, then edited in place.
      { messages: [instructions, user("hi")], tools: loose },
    ];
    const estimator = new RunRequestEstimator();
    for (const request of requests) expect(estimator.estimate(request)).toBe(estimateRequestTokens(request));
    loose.push(other);
    const grown: ModelRequest = { messages: [instructions, user("hi")], tools: loose };
    expect(estimator.estimate(grown)).toBe(estimateRequestTokens(grown));
    // A system message edited in place is counted as it is now.
    (instructions.content[0] as { text: string }).text = "y".repeat(400);
    expect(estimator.estimate(grown)).toBe(estimateRequestTokens(grown));
  });

  it("RunRequestEstimator serializes a history message once, also after the history shifted", () => {
    const args = counted({ q: "x" });
    const call: Message = {
      role: "assistant",
      content: [],
      toolCalls: [{ id: "c1", name: "lookup", arguments: args.value as Record<string, never> }],
    };
    const instructions = system("Be brief.");
    const estimator = new RunRequestEstimator();
    const grown = [instructions, user("first"), call, user("second")];
    // Appended to, then trimmed (the first question dropped: every later message moves).
    for (const messages of [grown.slice(0, 3), grown, [instructions, call, user("second"), user("third")]]) {
      expect(estimator.estimate({ messages })).toBe(estimateRequestTokens({ messages }));
    }
    expect(args.serialized()).toBe(2); // once by the estimator, once by estimateRequestTokens
  });
});
