/**
 * Composed decode steps (fast-check): an arguments object wrapped in any stack of layers — JSON
 * string encoding, markdown fences (any language tag), prose around a fence, prose around the
 * object itself as the innermost layer — is recovered exactly, by `extractJsonObject` and by
 * `normalizeToolArguments` from a call's invalid raw text and from a string-valued field.
 */
import type { JsonObject, ToolCall } from "@tinyagents/inference";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractJsonObject } from "./extract-json.js";
import { normalizeToolArguments } from "./normalize-arguments.js";

type Layer = "string" | "fence" | "fence_in_prose";

const FENCE = "```";

const prose = fc.constantFrom("Sure!", "Here are the arguments:", "ok", "Calling the tool now.", "");
const lang = fc.constantFrom("json", "JSON", "", "js");
const value = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 8, unit: fc.constantFrom("a", "z", " ", "é", "{", "}", '"', "\\", "`") }),
);
const object = fc.dictionary(
  fc.stringMatching(/^[a-z]{1,6}$/),
  fc.oneof(value, fc.array(value, { maxLength: 3 })),
  {
    minKeys: 1,
    maxKeys: 4,
  },
) as fc.Arbitrary<JsonObject>;

function wrap(text: string, layer: Layer, tag: string, words: string): string {
  if (layer === "string") return JSON.stringify(text);
  const fenced = `${FENCE}${tag}\n${text}\n${FENCE}`;
  return layer === "fence" ? fenced : `${words} ${fenced} ${words}`.trim();
}

const wrapped = fc
  .record({
    object,
    innermostProse: fc.option(
      prose.filter((p) => p !== ""),
      { nil: undefined },
    ),
    layers: fc.array(
      fc.record({
        layer: fc.constantFrom<Layer>("string", "fence", "fence_in_prose"),
        tag: lang,
        words: prose,
      }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
  })
  .map(({ object: obj, innermostProse, layers }) => {
    let text = JSON.stringify(obj);
    if (innermostProse !== undefined) text = `${innermostProse} ${text} thanks`;
    for (const { layer, tag, words } of layers) text = wrap(text, layer, tag, words);
    return { obj, text };
  });

describe("argument decoding composes its steps (property)", () => {
  it("extractJsonObject recovers the object from any stack of wrappings", () => {
    fc.assert(
      fc.property(wrapped, ({ obj, text }) => {
        expect(extractJsonObject(text)?.value).toEqual(obj);
      }),
      { numRuns: 500 },
    );
  });

  it("normalizeToolArguments recovers it from invalid raw text and from a string field", () => {
    const schema: JsonObject = {
      type: "object",
      properties: { payload: { type: "object" } },
      required: ["payload"],
    };
    fc.assert(
      fc.property(wrapped, ({ obj, text }) => {
        const fromRaw: ToolCall = {
          id: "c1",
          name: "t",
          arguments: {},
          invalid: { raw: text, error: "bad json" },
        };
        expect(normalizeToolArguments(fromRaw, { type: "object" }).arguments).toEqual(obj);
        const fromField: ToolCall = { id: "c2", name: "t", arguments: { payload: text } };
        expect(normalizeToolArguments(fromField, schema).arguments).toEqual({ payload: obj });
      }),
      { numRuns: 300 },
    );
  });

  it("a JSON string that holds fenced JSON (the reported case) is recovered", () => {
    const raw = JSON.stringify('```json\n{"city": "Oslo"}\n```');
    expect(extractJsonObject(raw)).toEqual({
      value: { city: "Oslo" },
      how: "decoded JSON that was wrapped in a JSON string, then parsed JSON from a markdown code fence",
    });
  });
});
