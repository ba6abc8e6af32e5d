import { describe, expect, it } from "vitest";
import { toStrictSchema } from "./strict-schema.js";

describe("toStrictSchema", () => {
  it("makes every property required, optional ones nullable, and closes objects, recursively", () => {
    const schema = {
      type: "object",
      properties: {
        name: { type: "string" },
        age: { type: "integer" },
        unit: { type: "string", enum: ["c", "f"] },
        tags: { type: "array", items: { type: "object", properties: { k: { type: "string" } } } },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
        ref: { $ref: "#/$defs/x" },
      },
      required: ["name"],
      $defs: { x: { type: "object", properties: { y: { type: ["string", "null"] } }, required: [] } },
    };
    const before = JSON.stringify(schema);
    expect(toStrictSchema(schema)).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        age: { type: ["integer", "null"] },
        unit: { type: ["string", "null"], enum: ["c", "f", null] },
        tags: {
          type: ["array", "null"],
          items: {
            type: "object",
            properties: { k: { type: ["string", "null"] } },
            required: ["k"],
            additionalProperties: false,
          },
        },
        either: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
        ref: { anyOf: [{ $ref: "#/$defs/x" }, { type: "null" }] },
      },
      required: ["name", "age", "unit", "tags", "either", "ref"],
      additionalProperties: false,
      $defs: {
        x: {
          type: "object",
          properties: { y: { type: ["string", "null"] } },
          required: ["y"],
          additionalProperties: false,
        },
      },
    });
    expect(JSON.stringify(schema)).toBe(before);
  });
});
