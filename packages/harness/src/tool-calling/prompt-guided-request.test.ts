import {
  assistant,
  type ModelRequest,
  system,
  type ToolSchema,
  toolCall,
  toolResult,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { coalescePromptToolTurns } from "./coalesce-tool-turns.js";
import { toPromptGuidedRequest } from "./prompt-guided-request.js";
import { promptToolInstructions, withPromptToolInstructions } from "./prompt-tool-instructions.js";

const WEATHER: ToolSchema = {
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const CLOCK: ToolSchema = { name: "clock", description: "", parameters: { type: "object" } };

describe("promptToolInstructions", () => {
  it("describes the protocol and lists every tool with its schema", () => {
    const block = promptToolInstructions([WEATHER, CLOCK]);
    expect(block).toContain(
      '<tool_call>\n{"name": "tool_name", "arguments": {"parameter": "value"}}\n</tool_call>',
    );
    expect(block).toContain("<tool_result>");
    expect(block).toContain(
      '- get_weather: Current weather for a city.\n  Arguments (JSON Schema): {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}',
    );
    expect(block).toContain("- clock: (no description)");
    expect(promptToolInstructions([WEATHER, CLOCK])).toBe(block);
  });

  it("states what the tool choice demands; none and no tools give nothing", () => {
    expect(promptToolInstructions([WEATHER], "required")).toContain("must call at least one tool");
    expect(promptToolInstructions([WEATHER], { type: "tool", name: "get_weather" })).toContain(
      'must call the tool "get_weather"',
    );
    expect(promptToolInstructions([WEATHER], "none")).toBe("");
    expect(promptToolInstructions([])).toBe("");
  });

  it("adds the block to the first system message, or inserts one", () => {
    const messages = [system("Be brief."), user("hi"), system("later")];
    const out = withPromptToolInstructions(messages, [WEATHER]);
    expect(out[0]?.content).toEqual([
      { type: "text", text: "Be brief." },
      { type: "text", text: promptToolInstructions([WEATHER]) },
    ]);
    expect(out.slice(1)).toEqual(messages.slice(1));
    expect(messages[0]?.content).toHaveLength(1);
    const inserted = withPromptToolInstructions([user("hi")], [WEATHER]);
    expect(inserted.map((m) => m.role)).toEqual(["system", "user"]);
    const unchanged = [user("hi")];
    expect(withPromptToolInstructions(unchanged, [])).toBe(unchanged);
  });
});

describe("coalescePromptToolTurns", () => {
  const call = toolCall("c1", "get_weather", { city: "Paris" });
  const call2 = toolCall("c2", "clock");
  const transcript = [
    system("sys"),
    user("weather?"),
    assistant("Checking.", [call, call2]),
    toolResult(call, "18C"),
    toolResult(
      call2,
      [
        { type: "json", value: { t: 1 } },
        { type: "image", source: { kind: "url", url: "https://x/i.png" } },
      ],
      {
        isError: true,
      },
    ),
    assistant("It is 18C."),
  ];

  it("renders calls as <tool_call> text and folds results into one user message", () => {
    const { messages, origins } = coalescePromptToolTurns(transcript);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant"]);
    expect(origins).toEqual([0, 1, 2, 3, 5]);
    expect(messages[2]).toEqual({
      role: "assistant",
      toolCalls: [],
      content: [
        { type: "text", text: "Checking." },
        {
          type: "text",
          text: '<tool_call>\n{"name":"get_weather","arguments":{"city":"Paris"}}\n</tool_call>',
        },
        { type: "text", text: '<tool_call>\n{"name":"clock","arguments":{}}\n</tool_call>' },
      ],
    });
    expect(messages[3]?.content).toEqual([
      { type: "text", text: '<tool_result name="get_weather">\n18C\n</tool_result>' },
      { type: "text", text: '<tool_result name="clock" error="true">\n{"t":1}\n</tool_result>' },
      { type: "image", source: { kind: "url", url: "https://x/i.png" } },
    ]);
    expect(messages[0]).toBe(transcript[0]);
    expect(transcript[2]).toMatchObject({ toolCalls: [call, call2] });
  });

  it("merges a following user message into the results, except across a segment boundary", () => {
    const withUser = [...transcript.slice(0, 4), user("also: hurry")];
    const merged = coalescePromptToolTurns(withUser);
    const last = merged.messages.at(-1);
    expect(last?.role).toBe("user");
    expect(last?.content.map((b) => (b.type === "text" ? b.text : b.type))).toEqual([
      '<tool_result name="get_weather">\n18C\n</tool_result>',
      "also: hurry",
    ]);
    const split = coalescePromptToolTurns(withUser, new Set([4]));
    expect(split.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "user"]);
  });
});

describe("toPromptGuidedRequest", () => {
  it("strips tools from the wire, declares them in the system prompt and keeps other fields", () => {
    const request: ModelRequest = {
      messages: [user("hi")],
      tools: [WEATHER],
      toolChoice: "required",
      parallelToolCalls: true,
      temperature: 0.2,
      metadata: { a: 1 },
    };
    const out = toPromptGuidedRequest(request);
    expect(out).toEqual({
      messages: [system(promptToolInstructions([WEATHER], "required")), user("hi")],
      temperature: 0.2,
      metadata: { a: 1 },
    });
    expect(request.tools).toEqual([WEATHER]);
  });

  it("recounts cache segments so they still tile the messages", () => {
    const call = toolCall("c1", "get_weather", { city: "Paris" });
    const request: ModelRequest = {
      messages: [user("q"), assistant("", [call]), toolResult(call, "18C"), user("next")],
      tools: [WEATHER],
      cacheSegments: [
        { id: "history", role: "history", cacheable: true, messageCount: 3 },
        { id: "tail", role: "volatile", cacheable: false, messageCount: 1 },
      ],
    };
    const out = toPromptGuidedRequest(request);
    expect(out.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "user"]);
    expect(out.cacheSegments?.map((s) => s.messageCount)).toEqual([4, 1]);
    const { cacheSegments: _segments, ...plain } = request;
    const unsegmented = toPromptGuidedRequest(plain);
    expect(unsegmented.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  });
});
