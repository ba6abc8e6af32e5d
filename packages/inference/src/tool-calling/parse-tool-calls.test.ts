import { describe, expect, it } from "vitest";
import type { ToolSchema } from "../tool/tool-schema.js";
import { parseToolCallsFromText } from "./parse-tool-calls.js";

const WEATHER: ToolSchema = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" }, zip: { type: "string" } },
  },
};

const names = (text: string, tools?: ReadonlyArray<ToolSchema | string>) =>
  parseToolCallsFromText(text, tools === undefined ? {} : { tools }).calls.map((c) => c.name);

describe("parseToolCallsFromText: <tool_call> tags", () => {
  it("parses one call and keeps the prose around it", () => {
    const result = parseToolCallsFromText(
      'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\nOne moment.',
    );
    expect(result.calls).toEqual([{ name: "get_weather", arguments: { city: "Paris" }, dialect: "tag" }]);
    expect(result.text).toBe("Let me check.\nOne moment.");
  });

  it("parses several tags, several objects and arrays in one tag, and tag spellings", () => {
    const text =
      '<tool_call>{"name":"a","arguments":{}}</tool_call><tool-call>{"name":"b","arguments":{"x":1}}\n{"name":"c"}</tool-call>' +
      '<TOOLCALL>[{"name":"d","arguments":{}}]</TOOLCALL><tool_calls>{"tool_calls":[{"name":"e","args":{"y":2}}]}</tool_calls>';
    const { calls, text: rest } = parseToolCallsFromText(text);
    expect(calls.map((c) => [c.name, c.arguments])).toEqual([
      ["a", {}],
      ["b", { x: 1 }],
      ["c", {}],
      ["d", {}],
      ["e", { y: 2 }],
    ]);
    expect(rest).toBe("");
  });

  it("accepts every argument-key alias behind a tag, in priority order", () => {
    for (const key of ["arguments", "args", "parameters", "params", "input"]) {
      const { calls } = parseToolCallsFromText(`<tool_call>{"name":"t","${key}":{"k":"${key}"}}</tool_call>`);
      expect(calls[0]?.arguments).toEqual({ k: key });
    }
    const both = parseToolCallsFromText(
      '<tool_call>{"name":"t","input":{"a":1},"arguments":{"b":2}}</tool_call>',
    );
    expect(both.calls[0]?.arguments).toEqual({ b: 2 });
  });

  it("never aliases the tool name", () => {
    const { calls, text } = parseToolCallsFromText(
      '<tool_call>{"tool":"get_weather","arguments":{}}</tool_call> <tool_call>{"tool_name":"x","args":{}}</tool_call>',
    );
    expect(calls).toEqual([]);
    expect(text).toContain('"tool":"get_weather"');
    expect(names('<tool_call>{"name":"  Get-Weather ","arguments":{}}</tool_call>')).toEqual(["Get-Weather"]);
  });

  it("reads the OpenAI function wrapper and string arguments (repairing relaxed JSON)", () => {
    const { calls } = parseToolCallsFromText(
      '<tool_call>{"type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Oslo\\"}"}}</tool_call>' +
        "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Rome', days: 2,}}</tool_call>",
    );
    expect(calls.map((c) => c.arguments)).toEqual([{ city: "Oslo" }, { city: "Rome", days: 2 }]);
  });

  it("marks unusable arguments invalid instead of guessing", () => {
    const { calls } = parseToolCallsFromText(
      '<tool_call>{"name":"t","arguments":"not json"}</tool_call><tool_call>{"name":"u","arguments":[1,2]}</tool_call>',
    );
    expect(calls[0]).toMatchObject({ name: "t", arguments: {}, invalid: { raw: "not json" } });
    expect(calls[1]).toMatchObject({
      name: "u",
      arguments: {},
      invalid: { raw: "[1,2]", error: "tool arguments must be a JSON object, got an array" },
    });
  });

  it("reads the attribute form and Qwen-style function bodies", () => {
    const { calls } = parseToolCallsFromText(
      '<tool_call name="get_weather">{"city":"Lima"}</tool_call>' +
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nSan José\n</parameter>\n<parameter=days>3</parameter>\n</function>\n</tool_call>",
      { tools: [WEATHER] },
    );
    expect(calls).toEqual([
      { name: "get_weather", arguments: { city: "Lima" }, dialect: "tag" },
      { name: "get_weather", arguments: { city: "San José", days: 3 }, dialect: "tag" },
    ]);
  });

  it("recovers a call whose closing tag is missing at the very end", () => {
    const result = parseToolCallsFromText(
      'Sure.\n<tool_call>{"name":"get_weather","arguments":{"city":"Bern"}}',
    );
    expect(result.calls.map((c) => c.arguments)).toEqual([{ city: "Bern" }]);
    expect(result.text).toBe("Sure.");
  });

  it("leaves markup without a readable call in the text, and removes stray closing tags", () => {
    expect(parseToolCallsFromText("a <tool_call>just words</tool_call> b")).toEqual({
      text: "a <tool_call>just words</tool_call> b",
      calls: [],
    });
    expect(parseToolCallsFromText("<tool_call> dangling").text).toBe("<tool_call> dangling");
    expect(parseToolCallsFromText("done</tool_call>\n</invoke>").text).toBe("done");
  });
});

describe("parseToolCallsFromText: Anthropic-style <invoke> XML", () => {
  it("parses <function_calls> with several invokes and typed parameters", () => {
    const text =
      'I will look.\n<function_calls>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n' +
      '<parameter name="days">3</parameter>\n<parameter name="zip">75001</parameter>\n</invoke>\n<invoke name="clock">\n</invoke>\n</function_calls>';
    const result = parseToolCallsFromText(text, { tools: [WEATHER] });
    expect(result.calls).toEqual([
      { name: "get_weather", arguments: { city: "Paris", days: 3, zip: "75001" }, dialect: "xml" },
      { name: "clock", arguments: {}, dialect: "xml" },
    ]);
    expect(result.text).toBe("I will look.");
  });

  it("turns JSON-looking parameter text into values when no schema says string", () => {
    const { calls } = parseToolCallsFromText(
      '<invoke name="t"><parameter name=\'n\'>42</parameter><parameter name="list">[1, 2]</parameter>' +
        '<parameter name="flag">true</parameter><parameter name="s">hello world</parameter></invoke>',
    );
    expect(calls[0]?.arguments).toEqual({ n: 42, list: [1, 2], flag: true, s: "hello world" });
  });

  it("keeps complete invokes when a stop sequence cut </function_calls>, and a JSON invoke body", () => {
    expect(
      parseToolCallsFromText('<function_calls><invoke name="a"><parameter name="x">1</parameter></invoke>\n')
        .calls,
    ).toEqual([{ name: "a", arguments: { x: 1 }, dialect: "xml" }]);
    expect(parseToolCallsFromText('<invoke name="b">{"y": 2}</invoke>').calls[0]?.arguments).toEqual({
      y: 2,
    });
    expect(parseToolCallsFromText('<invoke>{"name":"c","input":{"z":3}}</invoke>').calls).toEqual([
      { name: "c", arguments: { z: 3 }, dialect: "xml" },
    ]);
  });
});

describe("parseToolCallsFromText: fences and bare JSON", () => {
  it("parses ```tool_call fences (aliases allowed) and ```json fences whose content is a call", () => {
    const result = parseToolCallsFromText(
      'First:\n```tool_call\n{"name":"a","input":{"q":1}}\n```\nthen\n```json\n{"name":"b","arguments":{"r":2}}\n```',
    );
    expect(result.calls).toEqual([
      { name: "a", arguments: { q: 1 }, dialect: "fence" },
      { name: "b", arguments: { r: 2 }, dialect: "fence" },
    ]);
    expect(result.text).toBe("First:\nthen");
  });

  it("leaves ordinary JSON fences and code fences of other languages alone", () => {
    const data = 'Here:\n```json\n{"name":"Alice","age":3}\n```';
    expect(parseToolCallsFromText(data)).toEqual({ text: data, calls: [] });
    const code = 'Code:\n```python\nx = {"name": "t", "arguments": {}}\n```\nend';
    expect(parseToolCallsFromText(code)).toEqual({ text: code, calls: [] });
  });

  it("finds bare JSON calls in prose, but only with an explicit `arguments` key", () => {
    const result = parseToolCallsFromText(
      'Calling {"name": "get_weather", "arguments": {"city": "Oslo"}} now.',
    );
    expect(result.calls).toEqual([{ name: "get_weather", arguments: { city: "Oslo" }, dialect: "json" }]);
    expect(result.text).toBe("Calling\nnow.");
    expect(names('{"name": "Alice", "input": "hi"}')).toEqual([]);
    expect(names('{"name": "Alice", "args": {}}')).toEqual([]);
    expect(names('{"name": "two words", "arguments": {}}')).toEqual([]);
  });

  it("with known tools, unmarked calls must name one; marked calls are always returned", () => {
    const tools = ["get_weather"];
    expect(names('{"name": "rm_rf", "arguments": {}}', tools)).toEqual([]);
    expect(names('{"name": "get_weather", "arguments": {}}', tools)).toEqual(["get_weather"]);
    expect(names('<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>', tools)).toEqual(["rm_rf"]);
    expect(names('{"tool_calls": [{"name": "rm_rf"}, {"name": "get_weather"}]}', tools)).toEqual([
      "get_weather",
    ]);
  });

  it("bareJson: false turns bare JSON recognition off", () => {
    const text = '{"name": "get_weather", "arguments": {}}';
    expect(parseToolCallsFromText(text, { bareJson: false })).toEqual({ text, calls: [] });
  });

  it("ignores braces, angle brackets and backticks in ordinary prose", () => {
    const text = "Use `a < b` and {x | x > 0}; a <b>bold</b> tag, <toolbox>, ``inline``.";
    expect(parseToolCallsFromText(text)).toEqual({ text, calls: [] });
  });
});
