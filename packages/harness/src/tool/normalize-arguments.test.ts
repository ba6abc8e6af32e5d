import type { JsonObject, ToolCall } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { validateAgainstSchema } from "./json-schema-validator.js";
import { normalizeToolArguments } from "./normalize-arguments.js";

const schema: JsonObject = {
  type: "object",
  properties: {
    city: { type: "string" },
    options: { type: "object", properties: { unit: { type: "string" } } },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["city"],
};

function call(args: JsonObject, raw?: string): ToolCall {
  const c: ToolCall = { id: "c1", name: "weather", arguments: args };
  if (raw !== undefined) c.invalid = { raw, error: "Unexpected token" };
  return c;
}

describe("normalizeToolArguments", () => {
  it("leaves valid arguments alone", () => {
    const args = { city: "Oslo" };
    const result = normalizeToolArguments(call(args), schema);
    expect(result).toEqual({ arguments: args, changed: false });
    expect(result.arguments).toBe(args);
    expect("how" in result).toBe(false);
  });

  it("parses JSON inside markdown fences", () => {
    const raw = 'Sure! Here are the arguments:\n```json\n{"city": "Oslo"}\n```\n';
    const result = normalizeToolArguments(call({}, raw), schema);
    expect(result.arguments).toEqual({ city: "Oslo" });
    expect(result.changed).toBe(true);
    expect(result.how).toContain("markdown code fence");
  });

  it("parses fences without a language tag", () => {
    const result = normalizeToolArguments(call({}, '```\n{"city":"Rome"}```'), schema);
    expect(result.arguments).toEqual({ city: "Rome" });
  });

  it("extracts the first complete JSON object from surrounding junk", () => {
    const raw = 'calling tool {"city": "Paris", "options": {"unit": "c}"}} and then {"other": 1}';
    const result = normalizeToolArguments(call({}, raw), schema);
    expect(result.arguments).toEqual({ city: "Paris", options: { unit: "c}" } });
    expect(result.how).toContain("surrounding text");
  });

  it("skips a brace group that is not JSON and keeps looking", () => {
    const result = normalizeToolArguments(call({}, '{not json} then {"city":"Lima"}'), schema);
    expect(result.arguments).toEqual({ city: "Lima" });
  });

  it("decodes a JSON string holding the arguments object", () => {
    const result = normalizeToolArguments(call({}, JSON.stringify(JSON.stringify({ city: "Bern" }))), schema);
    expect(result.arguments).toEqual({ city: "Bern" });
    expect(result.how).toContain("JSON string");
  });

  it.each(["arguments", "args", "parameters", "params", "input", "properties"])(
    "unwraps a %s envelope",
    (key) => {
      const result = normalizeToolArguments(call({ [key]: { city: "Oslo" } }), schema);
      expect(result).toEqual({
        arguments: { city: "Oslo" },
        changed: true,
        how: `unwrapped the arguments from the "${key}" envelope`,
      });
    },
  );

  it("unwraps an envelope whose value is a JSON string", () => {
    const result = normalizeToolArguments(call({ arguments: '{"city":"Oslo"}' }), schema);
    expect(result.arguments).toEqual({ city: "Oslo" });
  });

  it("does not unwrap when the inner object would not validate, or the key is a declared property", () => {
    expect(normalizeToolArguments(call({ input: { town: "Oslo" } }), schema).changed).toBe(false);
    const declared: JsonObject = {
      type: "object",
      properties: { input: { type: "string" }, city: { type: "string" } },
      required: ["city"],
    };
    expect(normalizeToolArguments(call({ input: { city: "Oslo" } }), declared).changed).toBe(false);
    expect(normalizeToolArguments(call({ input: { city: "x" }, extra: 1 }), schema).changed).toBe(false);
  });

  it("does not unwrap arguments that already validate", () => {
    const open: JsonObject = { type: "object" };
    expect(normalizeToolArguments(call({ input: { city: "x" } }), open).changed).toBe(false);
  });

  it("parses JSON strings where the schema expects an object or array", () => {
    const result = normalizeToolArguments(
      call({ city: "Oslo", options: '{"unit":"f"}', tags: '["a","b"]' }),
      schema,
    );
    expect(result.arguments).toEqual({ city: "Oslo", options: { unit: "f" }, tags: ["a", "b"] });
    expect(result.how).toBe("parsed JSON text in $.options, $.tags");
    expect(validateAgainstSchema(schema, result.arguments)).toEqual([]);
  });

  it("does not parse strings where the schema expects a string, or that hold the wrong shape", () => {
    const result = normalizeToolArguments(call({ city: '{"a":1}', options: "[1]", tags: "nope" }), schema);
    expect(result.changed).toBe(false);
    expect(result.arguments).toEqual({ city: '{"a":1}', options: "[1]", tags: "nope" });
  });

  it("follows $ref when deciding what a property expects", () => {
    const withRef: JsonObject = {
      type: "object",
      properties: { filter: { $ref: "#/$defs/filter" } },
      $defs: { filter: { type: "object", properties: { nested: { type: "object" } } } },
    };
    const result = normalizeToolArguments(call({ filter: '{"nested":"{\\"x\\":1}"}' }), withRef);
    expect(result.arguments).toEqual({ filter: { nested: { x: 1 } } });
  });

  it("combines repairs: fenced raw text with an envelope and a JSON-string field", () => {
    const raw = '```json\n{"arguments": {"city": "Oslo", "options": "{\\"unit\\":\\"c\\"}"}}\n```';
    const result = normalizeToolArguments(call({}, raw), schema);
    expect(result.arguments).toEqual({ city: "Oslo", options: { unit: "c" } });
    expect(result.how).toBe(
      'parsed JSON from a markdown code fence; unwrapped the arguments from the "arguments" envelope; parsed JSON text in $.options',
    );
  });

  it("falls back to {} for unusable text when nothing is required", () => {
    const optional: JsonObject = { type: "object", properties: { verbose: { type: "boolean" } } };
    const result = normalizeToolArguments(call({}, "not json at all"), optional);
    expect(result.arguments).toEqual({});
    expect(result.changed).toBe(true);
    expect(result.how).toContain("no required arguments");
  });

  it("reports no change for unusable text when arguments are required", () => {
    const result = normalizeToolArguments(call({}, "{broken"), schema);
    expect(result).toEqual({ arguments: {}, changed: false });
  });
});
