import { describe, expect, it } from "vitest";
import { parseLenientJson } from "./json-repair.js";

describe("parseLenientJson", () => {
  it.each([
    ['{"a": 1}', "strict", { a: 1 }],
    ['```json\n{"a": 1}\n```', "code_fence", { a: 1 }],
    ['```\n{"a": [1, 2]', "closed", { a: [1, 2] }],
    ['Sure! {"a": 1} Anything else?', "slice", { a: 1 }],
    ['{"a": 1, "b": [1, 2,],}', "relaxed", { a: 1, b: [1, 2] }],
    ["{'a': 'it\\'s', b: True, c: None}", "relaxed", { a: "it's", b: true, c: null }],
    ['{"a": "don\'t", "b": "say \\"hi\\""}', "strict", { a: "don't", b: 'say "hi"' }],
    ['{"a": {"b": [1, 2', "closed", { a: { b: [1, 2] } }],
    ['{"a": "trunc', "closed", { a: "trunc" }],
    ['{"a": 1, "b":', "closed", { a: 1 }],
    ['{"a": 1, "b"', "closed", { a: 1 }],
    ['{"a": 1,', "closed", { a: 1 }],
    ["[1, 2, 3", "closed", [1, 2, 3]],
  ])("repairs %j (%s)", (text, repair, value) => {
    expect(parseLenientJson(text)).toEqual({ value, repair });
  });

  it("gives up on text with no JSON in it", () => {
    expect(parseLenientJson("Oslo has about 700k people.")).toBeUndefined();
    expect(parseLenientJson("")).toBeUndefined();
  });
});
