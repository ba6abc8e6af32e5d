/**
 * Properties of tool argument validation (fast-check, seeded globally by
 * test/setup/fast-check.ts), over generated JSON Schemas and values:
 * - a value generated to conform to a schema is valid, passes `tool().validate` unchanged (and
 *   unmutated), and `normalizeToolArguments` leaves it alone;
 * - any arguments against any generated schema: validation and normalization never throw, and
 *   every issue names the JSON path it is about;
 * - defining a tool from arbitrary junk as its schema only ever throws a typed `validation` error.
 */
import { tool } from "@tinyagents/harness";
import { normalizeToolArguments, validateAgainstSchema } from "@tinyagents/harness/tool";
import { isJsonObject, type JsonObject, type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** A schema and an arbitrary of values that conform to it. */
interface Node {
  schema: JsonObject;
  value: fc.Arbitrary<JsonValue>;
}

const leaf: fc.Arbitrary<Node> = fc.oneof(
  fc.nat({ max: 12 }).map((max) => ({
    schema: { type: "string", maxLength: max },
    // maxLength counts code points; a grapheme may hold several (a letter + a combining accent).
    value: fc
      .string({ maxLength: max, unit: "grapheme" })
      .filter((s) => [...s].length <= max) as fc.Arbitrary<JsonValue>,
  })),
  fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.nat({ max: 1000 })).map(([min, span]) => ({
    schema: { type: "integer", minimum: min, maximum: min + span },
    value: fc.integer({ min, max: min + span }) as fc.Arbitrary<JsonValue>,
  })),
  fc.constant<Node>({
    schema: { type: "number" },
    value: fc.double({ noNaN: true, noDefaultInfinity: true }) as fc.Arbitrary<JsonValue>,
  }),
  fc.constant<Node>({ schema: { type: "boolean" }, value: fc.boolean() }),
  fc.constant<Node>({ schema: { type: "null" }, value: fc.constant(null) }),
  fc
    .array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean()), { minLength: 1, maxLength: 4 })
    .map((options) => ({
      schema: { enum: options },
      value: fc.constantFrom(...options) as fc.Arbitrary<JsonValue>,
    })),
);

const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    tie("node").map((items) => ({
      schema: { type: "array", items: items.schema, maxItems: 3 },
      value: fc.array(items.value, { maxLength: 3 }) as fc.Arbitrary<JsonValue>,
    })),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => ({
      schema: { anyOf: [a.schema, b.schema] },
      value: fc.oneof(a.value, b.value),
    })),
    objectNode(tie("node")),
  ),
}));

/** An object schema over generated properties (some required, maybe closed), and its values. */
function objectNode(child: fc.Arbitrary<Node>): fc.Arbitrary<Node> {
  return fc
    .tuple(
      fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/), { maxLength: 4 }),
      fc.array(child, { minLength: 4, maxLength: 4 }),
      fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      fc.boolean(),
    )
    .map(([keys, children, requiredFlags, closed]) => {
      const properties: JsonObject = {};
      const record: Record<string, fc.Arbitrary<JsonValue>> = {};
      const required: string[] = [];
      keys.forEach((key, i) => {
        const c = children[i] as Node;
        properties[key] = c.schema;
        record[key] = c.value;
        if (requiredFlags[i] === true) required.push(key);
      });
      const schema: JsonObject = { type: "object", properties, required };
      if (closed) schema.additionalProperties = false;
      const value = fc.record(record, { requiredKeys: required }) as fc.Arbitrary<JsonValue>;
      return { schema, value };
    });
}

/** A top-level tool schema (an object) with a conforming value. */
const toolSchemaAndArgs = objectNode(node).chain((n) =>
  n.value.map((value) => [n.schema, value as JsonObject] as const),
);

const define = (schema: JsonObject) =>
  tool({ name: "probe", description: "Property test tool.", inputSchema: schema, execute: () => "ok" });

describe("tool argument validation properties", () => {
  it("conforming arguments are valid and pass unchanged", async () => {
    await fc.assert(
      fc.asyncProperty(toolSchemaAndArgs, async ([schema, args]) => {
        const before = structuredClone(args);
        expect(validateAgainstSchema(schema, args)).toEqual([]);
        const result = await define(schema).validate(args);
        expect(result).toEqual({ ok: true, value: before });
        expect(args).toEqual(before);
        const normalized = normalizeToolArguments({ id: "c1", name: "probe", arguments: args }, schema);
        expect(normalized.changed).toBe(false);
        expect(normalized.arguments).toEqual(before);
      }),
    );
  });

  it("any arguments against any schema: never throws, every issue names its path", async () => {
    const anyArgs = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
    await fc.assert(
      fc.asyncProperty(
        objectNode(node),
        anyArgs,
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        async (n, args, raw) => {
          const issues = validateAgainstSchema(n.schema, args as JsonObject);
          expect(Array.isArray(issues)).toBe(true);
          for (const issue of issues) expect(issue.startsWith("$")).toBe(true);
          const result = await define(n.schema).validate(args as JsonObject);
          expect(result.ok).toBe(issues.length === 0);
          const call = {
            id: "c1",
            name: "probe",
            arguments: args as JsonObject,
            ...(raw === undefined ? {} : { invalid: { raw, error: "bad" } }),
          };
          const normalized = normalizeToolArguments(call, n.schema);
          expect(isJsonObject(normalized.arguments)).toBe(true);
        },
      ),
    );
  });

  it("a tool defined from junk instead of a schema fails only with a typed validation error", () => {
    fc.assert(
      fc.property(fc.anything(), (junk) => {
        try {
          define(junk as JsonObject);
        } catch (error) {
          expect(TinyAgentsError.isInstance(error, "validation"), String(error)).toBe(true);
        }
      }),
    );
  });
});
