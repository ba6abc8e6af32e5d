import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseToolArguments } from "../../model/stream-accumulator.js";
import { repairArguments } from "./repair-arguments.js";
import { ToolArgumentsBuffer } from "./tool-arguments.js";

/** Feed `raw` in the given pieces; return [streamed-before-finish, full text]. */
function run(pieces: string[]): [string, string] {
  const buffer = new ToolArgumentsBuffer();
  let streamed = "";
  for (const piece of pieces) streamed += buffer.push(piece);
  return [streamed, streamed + buffer.finish()];
}

const CASES: Array<[string, string, unknown]> = [
  ["valid", '{"city":"Paris","days":3}', { city: "Paris", days: 3 }],
  ["empty", "", {}],
  ["whitespace", "  \n", {}],
  ["leading whitespace", '  {"a":1}', { a: 1 }],
  ["template marker after", '{"a":1}<|call_end|>', { a: 1 }],
  ["template marker before", '<|tool_call_begin|>{"a":1}', { a: 1 }],
  ["deepseek marker", '{"a":1}<｜tool▁call▁end｜>', { a: 1 }],
  ["tool_call tag", '<tool_call>{"a":"x"}</tool_call>', { a: "x" }],
  ["duplicate object", '{"a":1}{"a":1}', { a: 1 }],
  ["prose before", 'Sure! {"q":"x"} done', { q: "x" }],
  ["single quotes", "{'city': 'Paris', 'note': 'it\\'s \"ok\"'}", { city: "Paris", note: 'it\'s "ok"' }],
  ["trailing comma", '{"a":1,"b":[1,2,],}', { a: 1, b: [1, 2] }],
  ["unquoted keys", '{city: "Paris", max_days: 3}', { city: "Paris", max_days: 3 }],
  ["python literals", '{"a": True, "b": None, "c": False}', { a: true, b: null, c: false }],
  ["raw newline in string", '{"text":"line1\nline2"}', { text: "line1\nline2" }],
  ["missing closer", '{"a":{"b":1}', { a: { b: 1 } }],
  ["double braces", '{{"a":1}}', { a: 1 }],
  ["double encoded", '"{\\"a\\":1}"', { a: 1 }],
  ["marker inside string is kept", '{"a":"<|x|>"}', { a: "<|x|>" }],
];

describe("ToolArgumentsBuffer + repair ladder", () => {
  it.each(CASES)("%s", (_name, raw, expected) => {
    const [, full] = run([raw]);
    const parsed = parseToolArguments(full);
    expect(parsed.invalid).toBeUndefined();
    expect(parsed.arguments).toEqual(expected);
  });

  it("keeps hopeless text as an invalid call with the raw text", () => {
    const [, full] = run(["not json at all"]);
    const parsed = parseToolArguments(full);
    expect(parsed.arguments).toEqual({});
    expect(parsed.invalid?.raw).toBe("not json at all");
    expect(parsed.invalid?.error).toBeTruthy();
    expect(repairArguments("[1,2]")).toBeUndefined();
  });

  it("streams a valid object as it arrives and holds back a pending comma", () => {
    const buffer = new ToolArgumentsBuffer();
    expect(buffer.push('{"a"')).toBe('{"a"');
    expect(buffer.push(":1,")).toBe(":1");
    expect(buffer.push(' "b":2}')).toBe(', "b":2}');
    expect(buffer.push("<|end|>")).toBe("");
    expect(buffer.finish()).toBe("");
  });

  it("gives the same text however the raw text is fragmented (property)", () => {
    const raws = CASES.map(([, raw]) => raw).concat(["not json", '{"a":[1,{"b":"c\\u00e9"}],"d":-1.5e3}']);
    fc.assert(
      fc.property(
        fc.constantFrom(...raws),
        fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 8 }),
        (raw, cuts) => {
          const points = [...new Set(cuts.map((c) => Math.min(c, raw.length)))].sort((a, b) => a - b);
          const pieces: string[] = [];
          let start = 0;
          for (const point of points) {
            pieces.push(raw.slice(start, point));
            start = point;
          }
          pieces.push(raw.slice(start));
          const [streamed, full] = run(pieces);
          const [, whole] = run([raw]);
          expect(full).toBe(whole);
          expect(full.startsWith(streamed)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});
