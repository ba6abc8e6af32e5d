import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolCallMarkupScrubber } from "./markup-scrubber.js";
import { parseToolCallsFromText } from "./parse-tool-calls.js";

const CORPUS = [
  'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\nOne moment.',
  'Sure.\n<tool_call>{"name":"get_weather","arguments":{"city":"Bern"}}',
  'I will look.\n<function_calls>\n<invoke name="get_weather">\n<parameter name="city">Zürich 🌧</parameter>\n</invoke>\n</function_calls>\nDone.',
  '<function_calls><invoke name="a"><parameter name="x">1</parameter></invoke>\n',
  'First:\n```tool_call\n{"name":"a","input":{"q":1}}\n```\nthen\n```json\n{"name":"b","arguments":{"r":2}}\n```',
  'Here:\n```json\n{"name":"Alice","age":3}\n```\nand ```python\nx = {"name": "t", "arguments": {}}\n```\nend',
  'Calling {"name": "get_weather", "arguments": {"city": "Oslo"}} now. {"name": "Alice", "input": "hi"}',
  "Use `a < b` and {x | x > 0}; a <b>bold</b> tag, <toolbox>, ``inline``.   \n\n",
  "a <tool_call>just words</tool_call> b</tool_call>  <tool_call> dangling",
  '<tool_call name="get_weather">{"city":"Lima"}</tool_call><tool_call>\n<function=f>\n<parameter=k>v</parameter>\n</function>\n</tool_call>tail',
  'unclosed ``` fence\n{"name": "x", "arguments": {}}\nmore',
  "  \n  leading space, then a tag at the end <tool_",
  '{"name": "x", "arguments": {"nested": {"deep": [1, {"a": "}"}]}}}',
];

function scrub(chunks: readonly string[]) {
  const scrubber = new ToolCallMarkupScrubber();
  const pieces = chunks.map((chunk) => scrubber.push(chunk));
  pieces.push(scrubber.flush());
  return { pieces, text: pieces.join(""), calls: scrubber.calls };
}

function splitAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let start = 0;
  for (const point of points) {
    out.push(text.slice(start, point));
    start = point;
  }
  out.push(text.slice(start));
  return out;
}

describe("ToolCallMarkupScrubber", () => {
  it.each(CORPUS)("agrees with parseToolCallsFromText for any split: %#", (text) => {
    const expected = parseToolCallsFromText(text);
    expect(scrub([text])).toMatchObject({ text: expected.text, calls: expected.calls });
    expect(scrub([...text])).toMatchObject({ text: expected.text, calls: expected.calls });
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const result = scrub(splitAt(text, cuts));
        expect(result.text).toBe(expected.text);
        expect(result.calls).toEqual(expected.calls);
      }),
      { numRuns: 200 },
    );
  });

  it("agrees with parseToolCallsFromText on random markup soup, for any split", () => {
    const pieces = [
      "<tool_call>",
      "</tool_call>",
      '{"name": "a", "arguments": {"x": 1}}',
      '{"name": "b", "args": "{\\"y\\": [1, 2]}"}',
      "```json\n",
      "```tool_call\n",
      "```py\n",
      "```",
      '<invoke name="c">',
      '<parameter name="k">',
      "</parameter>",
      "</invoke>",
      "<function_calls>",
      "</function_calls>",
      '<tool_call name="d">',
      " some text ",
      "\n",
      "{",
      "}",
      "<",
      "`",
      '"',
      "\\",
      "é🌧",
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 14 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (parts, cuts) => {
          const text = parts.join("");
          const expected = parseToolCallsFromText(text);
          const result = scrub(splitAt(text, cuts));
          expect(result.text).toBe(expected.text);
          expect(result.calls).toEqual(expected.calls);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("never shows a piece of a tag split across deltas, and releases prose at once", () => {
    const scrubber = new ToolCallMarkupScrubber();
    expect(scrubber.push("Checking the weather <tool_")).toBe("Checking the weather");
    expect(scrubber.push('call>{"name": "get_')).toBe("");
    expect(scrubber.push('weather", "arguments": {}}</tool')).toBe("");
    expect(scrubber.push("_call> Back")).toBe("\nBack");
    expect(scrubber.push(" soon <b>")).toBe(" soon <b>");
    expect(scrubber.flush()).toBe("");
    expect(scrubber.calls).toEqual([{ name: "get_weather", arguments: {}, dialect: "tag" }]);
  });

  it("streamed character by character, no shown piece contains markup", () => {
    const text = CORPUS[2]!;
    const { pieces } = scrub([...text]);
    for (const piece of pieces) expect(piece).not.toMatch(/<\/?(invoke|parameter|function_calls)/);
  });

  it("releases look-alikes as soon as they are disproven", () => {
    const scrubber = new ToolCallMarkupScrubber();
    expect(scrubber.push("x <tool")).toBe("x");
    expect(scrubber.push("box> y {")).toBe(" <toolbox> y");
    expect(scrubber.push('"nam')).toBe("");
    expect(scrubber.push('ed": 1')).toBe(' {"named": 1');
    expect(scrubber.flush()).toBe("");
  });

  it("holds a fence's closing backticks only as long as needed", () => {
    const scrubber = new ToolCallMarkupScrubber();
    // the trailing newline is whitespace (held until more prose follows), the backtick may close the fence
    expect(scrubber.push("```ts\nconst a = 1;\n`")).toBe("```ts\nconst a = 1;");
    expect(scrubber.push("``\nafter")).toBe("\n```\nafter");
  });

  it("returns nothing after flush", () => {
    const scrubber = new ToolCallMarkupScrubber();
    expect(scrubber.push("a ")).toBe("a");
    expect(scrubber.flush()).toBe("");
    expect(scrubber.push("b")).toBe("");
    expect(scrubber.flush()).toBe("");
  });
});
