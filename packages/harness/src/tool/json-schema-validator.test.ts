import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import {
  assertObjectSchema,
  compileSchema,
  type JsonSchema,
  UNCHECKED_KEYWORDS,
  validateAgainstSchema,
} from "./json-schema-validator.js";

describe("validateAgainstSchema", () => {
  it("accepts anything for {} and true, nothing for false", () => {
    for (const value of [null, 1, "x", [1], { a: 1 }]) {
      expect(validateAgainstSchema({}, value)).toEqual([]);
      expect(validateAgainstSchema(true, value)).toEqual([]);
      expect(validateAgainstSchema(false, value)).toEqual(["$: no value is allowed here"]);
    }
  });

  it("checks type with paths and names what it got", () => {
    const schema = { type: "object", properties: { city: { type: "string" } } };
    expect(validateAgainstSchema(schema, { city: 3 })).toEqual(["$.city: expected string, got number"]);
    expect(validateAgainstSchema(schema, [])).toEqual(["$: expected object, got array"]);
    expect(validateAgainstSchema({ type: "string" }, null)).toEqual(["$: expected string, got null"]);
    expect(validateAgainstSchema({ type: "boolean" }, "true")).toEqual(["$: expected boolean, got string"]);
  });

  it("distinguishes integer from number", () => {
    expect(validateAgainstSchema({ type: "integer" }, 3)).toEqual([]);
    expect(validateAgainstSchema({ type: "integer" }, 3.5)).toEqual([
      "$: expected integer, got number (3.5)",
    ]);
    expect(validateAgainstSchema({ type: "number" }, 3)).toEqual([]);
  });

  it("supports type arrays and null", () => {
    const schema = { type: ["string", "null"] };
    expect(validateAgainstSchema(schema, null)).toEqual([]);
    expect(validateAgainstSchema(schema, "a")).toEqual([]);
    expect(validateAgainstSchema(schema, 1)).toEqual(["$: expected string or null, got number"]);
    expect(validateAgainstSchema({ type: "null" }, null)).toEqual([]);
  });

  it("supports OpenAPI nullable", () => {
    expect(validateAgainstSchema({ type: "string", nullable: true }, null)).toEqual([]);
    expect(validateAgainstSchema({ type: "string" }, null)).toHaveLength(1);
  });

  it("checks enum and const with deep equality", () => {
    expect(validateAgainstSchema({ enum: ["a", "b"] }, "c")).toEqual([
      '$: expected one of "a", "b", got "c"',
    ]);
    expect(validateAgainstSchema({ enum: [{ x: [1] }] }, { x: [1] })).toEqual([]);
    expect(validateAgainstSchema({ const: "on" }, "off")).toEqual(['$: expected "on", got "off"']);
    expect(validateAgainstSchema({ const: { a: 1, b: 2 } }, { b: 2, a: 1 })).toEqual([]);
    expect(validateAgainstSchema({ const: null }, 0)).toEqual(["$: expected null, got 0"]);
  });

  it("reports every missing required property and recurses into properties", () => {
    const schema = {
      type: "object",
      required: ["a", "b"],
      properties: { nested: { type: "object", required: ["x"], properties: { x: { type: "number" } } } },
    };
    expect(validateAgainstSchema(schema, { nested: {} })).toEqual([
      "$.a: missing required property",
      "$.b: missing required property",
      "$.nested.x: missing required property",
    ]);
  });

  it("quotes non-identifier keys in paths", () => {
    const schema = { type: "object", properties: { "first name": { type: "string" } } };
    expect(validateAgainstSchema(schema, { "first name": 1 })).toEqual([
      '$["first name"]: expected string, got number',
    ]);
  });

  it("handles additionalProperties false and schema", () => {
    const closed = { type: "object", properties: { a: {} }, additionalProperties: false };
    expect(validateAgainstSchema(closed, { a: 1, b: 2 })).toEqual(["$.b: unexpected property (allowed: a)"]);
    const typed = { type: "object", additionalProperties: { type: "number" } };
    expect(validateAgainstSchema(typed, { x: 1, y: "2" })).toEqual(["$.y: expected number, got string"]);
    expect(validateAgainstSchema({ type: "object" }, { anything: true })).toEqual([]);
  });

  it("treats patternProperties keys as known", () => {
    const schema = {
      type: "object",
      patternProperties: { "^x_": { type: "string" } },
      additionalProperties: false,
    };
    expect(validateAgainstSchema(schema, { x_a: "ok" })).toEqual([]);
    expect(validateAgainstSchema(schema, { x_a: 1, y: 1 })).toEqual([
      "$.x_a: expected string, got number",
      "$.y: unexpected property (allowed: none)",
    ]);
  });

  it("validates items, tuples and item counts", () => {
    const schema = { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 };
    expect(validateAgainstSchema(schema, ["a", 2])).toEqual(["$[1]: expected string, got number"]);
    expect(validateAgainstSchema(schema, [])).toEqual(["$: expected at least 1 items, got 0"]);
    expect(validateAgainstSchema(schema, ["a", "b", "c"])).toEqual(["$: expected at most 2 items, got 3"]);
    const tuple = { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false };
    expect(validateAgainstSchema(tuple, ["a", 1])).toEqual([]);
    expect(validateAgainstSchema(tuple, ["a", 1, true])).toEqual(["$[2]: no value is allowed here"]);
    expect(validateAgainstSchema({ uniqueItems: true }, [1, 2, 1])).toEqual([
      "$: items must be unique, but [0] and [2] are equal",
    ]);
  });

  it("checks numeric bounds", () => {
    const schema = { type: "number", minimum: 1, maximum: 10 };
    expect(validateAgainstSchema(schema, 1)).toEqual([]);
    expect(validateAgainstSchema(schema, 10)).toEqual([]);
    expect(validateAgainstSchema(schema, 0)).toEqual(["$: expected >= 1, got 0"]);
    expect(validateAgainstSchema(schema, 11)).toEqual(["$: expected <= 10, got 11"]);
    const exclusive = { exclusiveMinimum: 0, exclusiveMaximum: 1 };
    expect(validateAgainstSchema(exclusive, 0)).toEqual(["$: expected > 0, got 0"]);
    expect(validateAgainstSchema(exclusive, 1)).toEqual(["$: expected < 1, got 1"]);
    expect(validateAgainstSchema(exclusive, 0.5)).toEqual([]);
    const draft4 = { minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true };
    expect(validateAgainstSchema(draft4, 0)).toEqual(["$: expected > 0, got 0"]);
    expect(validateAgainstSchema(draft4, 1)).toEqual(["$: expected < 1, got 1"]);
    expect(validateAgainstSchema({ multipleOf: 0.1 }, 0.3)).toEqual([]);
    expect(validateAgainstSchema({ multipleOf: 2 }, 3)).toEqual(["$: expected a multiple of 2, got 3"]);
  });

  it("checks string lengths in code points and patterns", () => {
    const schema = { type: "string", minLength: 2, maxLength: 3 };
    expect(validateAgainstSchema(schema, "a")).toEqual(["$: expected at least 2 characters, got 1"]);
    expect(validateAgainstSchema(schema, "abcd")).toEqual(["$: expected at most 3 characters, got 4"]);
    expect(validateAgainstSchema(schema, "😀😀😀")).toEqual([]);
    expect(validateAgainstSchema({ pattern: "^[0-9]{3}$" }, "12a")).toEqual([
      '$: "12a" does not match pattern ^[0-9]{3}$',
    ]);
    expect(validateAgainstSchema({ pattern: "^\\d+$" }, "123")).toEqual([]);
    expect(validateAgainstSchema({ pattern: "(" }, "x")[0]).toContain("not a valid regular expression");
    expect(validateAgainstSchema({ pattern: "(" }, "x")[0]).toContain("fail closed");
  });

  it("anyOf: passes when one matches, merges plain type mismatches, otherwise lists alternatives", () => {
    const simple = { anyOf: [{ type: "string" }, { type: "number" }] };
    expect(validateAgainstSchema(simple, 1)).toEqual([]);
    expect(validateAgainstSchema(simple, true)).toEqual(["$: expected string or number, got boolean"]);
    const detailed = { anyOf: [{ type: "string", minLength: 5 }, { type: "number" }] };
    expect(validateAgainstSchema(detailed, "abc")).toEqual([
      "$: does not match any anyOf alternative: (1) $: expected at least 5 characters, got 3 (2) $: expected number, got string",
    ]);
  });

  it("oneOf requires exactly one match", () => {
    const schema = { oneOf: [{ type: "number" }, { type: "integer" }] };
    expect(validateAgainstSchema(schema, 1.5)).toEqual([]);
    expect(validateAgainstSchema(schema, 2)).toEqual([
      "$: matches 2 alternatives of oneOf, but must match exactly one",
    ]);
    expect(validateAgainstSchema(schema, "x")).toEqual(["$: expected number or integer, got string"]);
  });

  it("allOf collects issues from every branch; not inverts", () => {
    const schema = { allOf: [{ type: "object", required: ["a"] }, { required: ["b"] }] };
    expect(validateAgainstSchema(schema, {})).toEqual([
      "$.a: missing required property",
      "$.b: missing required property",
    ]);
    expect(validateAgainstSchema({ not: { type: "string" } }, "x")).toEqual([
      '$: must not match the schema in "not"',
    ]);
    expect(validateAgainstSchema({ not: { type: "string" } }, 1)).toEqual([]);
  });

  it("follows $ref to $defs and definitions, including recursive schemas", () => {
    const schema = {
      type: "object",
      properties: { tree: { $ref: "#/$defs/node" }, unit: { $ref: "#/definitions/unit" } },
      $defs: {
        node: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string" },
            children: { type: "array", items: { $ref: "#/$defs/node" } },
          },
        },
      },
      definitions: { unit: { enum: ["c", "f"] } },
    };
    const ok = { tree: { name: "root", children: [{ name: "a", children: [] }] }, unit: "c" };
    expect(validateAgainstSchema(schema, ok)).toEqual([]);
    const bad = { tree: { name: "root", children: [{ children: [{ name: 1 }] }] }, unit: "k" };
    expect(validateAgainstSchema(schema, bad)).toEqual([
      "$.tree.children[0].name: missing required property",
      "$.tree.children[0].children[0].name: expected string, got number",
      '$.unit: expected one of "c", "f", got "k"',
    ]);
  });

  it("reports (and does not loop on) circular and unresolvable $refs", () => {
    const circular = { $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } } };
    expect(validateAgainstSchema(circular, 1)).toEqual([
      "$: the schema's $refs are circular and never reach a concrete schema, so the value is refused (fail closed)",
    ]);
    expect(validateAgainstSchema({ $ref: "#" }, 1)[0]).toContain("circular");
    expect(validateAgainstSchema({ $ref: "#/$defs/missing" }, 1)).toEqual([
      '$: schema $ref "#/$defs/missing" cannot be resolved within the schema (remote refs are not fetched), so the value is refused (fail closed)',
    ]);
    expect(validateAgainstSchema({ $ref: "https://example.com/s.json" }, 1)[0]).toContain(
      "cannot be resolved",
    );
  });

  it("honours the draft named by $schema (draft-07 tuple items; 2020-12 by default)", () => {
    const tuple = { items: [{ type: "string" }], additionalItems: false };
    const draft7 = { $schema: "http://json-schema.org/draft-07/schema#", ...tuple };
    expect(validateAgainstSchema(draft7, ["a", 1])).toEqual(["$[1]: no value is allowed here"]);
    expect(validateAgainstSchema(draft7, [1])).toEqual(["$[0]: expected string, got number"]);
  });

  it("does not modify the caller's schema and compiles each schema object once", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string", nullable: true }, b: { $ref: "#/$defs/b" } },
      $defs: { b: { type: "integer" } },
    };
    const before = JSON.stringify(schema);
    expect(validateAgainstSchema(schema, { a: null, b: 1 })).toEqual([]);
    expect(JSON.stringify(schema)).toBe(before);
    expect(Object.getOwnPropertyNames(schema.properties.b)).toEqual(["$ref"]);
    expect(compileSchema(schema)).toBe(compileSchema(schema));
  });

  it("uses the given root path", () => {
    expect(validateAgainstSchema({ type: "string" }, 1, "$.args")).toEqual([
      "$.args: expected string, got number",
    ]);
  });
});

describe("assertObjectSchema", () => {
  function errorOf(schema: unknown): TinyAgentsError {
    try {
      assertObjectSchema(schema, "my_tool");
    } catch (error) {
      if (TinyAgentsError.isInstance(error, "validation")) return error;
    }
    throw new Error("expected a validation error");
  }

  it("accepts object schemas, type lists containing object, and bare properties", () => {
    expect(() => assertObjectSchema({ type: "object" }, "t")).not.toThrow();
    expect(() => assertObjectSchema({ type: ["object", "null"] }, "t")).not.toThrow();
    expect(() => assertObjectSchema({ properties: { a: {} } }, "t")).not.toThrow();
    expect(() =>
      assertObjectSchema({ $ref: "#/$defs/args", $defs: { args: { type: "object" } } }, "t"),
    ).not.toThrow();
  });

  it("rejects non-object schemas saying tools take an object of named arguments", () => {
    const error = errorOf({ type: "string" });
    expect(error.message).toContain('tool "my_tool"');
    expect(error.message).toContain('type "string"');
    expect(error.message).toContain("object of named arguments");
    expect(error.details).toEqual({ field: "inputSchema", tool: "my_tool" });
    expect(errorOf({}).message).toContain("without `type` or `properties`");
    expect(errorOf(null).message).toContain("got null instead of a schema object");
    expect(errorOf([]).message).toContain("got an array instead of a schema object");
    expect(errorOf("x").message).toContain("got a string instead of a schema object");
  });
});

describe("keywords the probe found unchecked (issue 24 #8)", () => {
  const v = (schema: JsonSchema, value: JsonValue) => validateAgainstSchema(schema, value);
  it("contains / minContains / maxContains", () => {
    const schema = { type: "array", contains: { const: "x" } } as JsonSchema;
    expect(v(schema, ["a", "b"])).toHaveLength(1);
    expect(v(schema, ["a", "x"])).toEqual([]);
    const bounded = {
      type: "array",
      contains: { type: "integer" },
      minContains: 2,
      maxContains: 3,
    } as JsonSchema;
    expect(v(bounded, [1, "a"])).toHaveLength(1);
    expect(v(bounded, [1, 2, 3, 4])).toHaveLength(1);
    expect(v(bounded, [1, 2, "a"])).toEqual([]);
  });
  it("dependentRequired, dependentSchemas and draft-07 dependencies", () => {
    const schema = { type: "object", dependentRequired: { card: ["cvv"] } } as JsonSchema;
    expect(v(schema, { card: "1" })[0]).toMatch(/\$\.cvv: missing property required when "card"/);
    expect(v(schema, { card: "1", cvv: "2" })).toEqual([]);
    expect(v(schema, {})).toEqual([]);
    const ds = { type: "object", dependentSchemas: { a: { required: ["b"] } } } as JsonSchema;
    expect(v(ds, { a: 1 })).toHaveLength(1);
    const old = {
      type: "object",
      dependencies: { a: ["b"], c: { properties: { d: { type: "string" } } } },
    } as JsonSchema;
    expect(v(old, { a: 1 })).toHaveLength(1);
    expect(v(old, { c: 1, d: 2 })).toHaveLength(1);
    expect(v(old, { c: 1, d: "ok" })).toEqual([]);
  });
  it("if / then / else", () => {
    // Parsed from JSON: a literal `then` key trips the thenable lint rule.
    const schema = JSON.parse(
      '{"type":"object","if":{"properties":{"kind":{"const":"file"}}},"then":{"required":["path"]},"else":{"required":["url"]}}',
    ) as JsonSchema;
    expect(v(schema, { kind: "file" })).toHaveLength(1);
    expect(v(schema, { kind: "file", path: "p" })).toEqual([]);
    expect(v(schema, { kind: "web" })).toHaveLength(1);
    expect(v(schema, { kind: "web", url: "u" })).toEqual([]);
  });
  it("propertyNames", () => {
    const schema = { type: "object", propertyNames: { pattern: "^[a-z]+$" } } as JsonSchema;
    expect(v(schema, { ok: 1, "Not-Ok": 2 })).toHaveLength(1);
    expect(v(schema, { ok: 1 })).toEqual([]);
  });
  it("fails closed on assertion keywords it cannot check", () => {
    for (const keyword of UNCHECKED_KEYWORDS) {
      const issues = v({ type: "object", [keyword]: false } as JsonSchema, {});
      expect(issues[0]).toContain(`"${keyword}"`);
      expect(issues[0]).toContain("fail closed");
    }
    expect(v({ type: "object", properties: { a: { $dynamicRef: "#x" } } } as JsonSchema, {})[0]).toContain(
      '"$dynamicRef"',
    );
  });
  it("asserts the formats the library knows", () => {
    const schema = { type: "string", format: "email" } as JsonSchema;
    expect(v(schema, "x")).toEqual(['$: "x" is not a valid email']);
    expect(v(schema, "a@example.com")).toEqual([]);
    expect(v({ type: "string", format: "made-up" } as JsonSchema, "x")).toEqual([]);
  });
});
