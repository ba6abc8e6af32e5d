import { describe, expect, it } from "vitest";
import { jsonTypeOf, matchesJsonType } from "./json-type.js";

describe("JSON types", () => {
  it("names the JSON type of a value", () => {
    expect([null, [], {}, "", 1, true].map(jsonTypeOf)).toEqual([
      "null",
      "array",
      "object",
      "string",
      "number",
      "boolean",
    ]);
  });

  it("matches JSON Schema types, integer being a whole number", () => {
    expect(matchesJsonType(2, "integer")).toBe(true);
    expect(matchesJsonType(2.5, "integer")).toBe(false);
    expect(matchesJsonType(2, "number")).toBe(true);
    expect(matchesJsonType([], "object")).toBe(false);
    expect(matchesJsonType(null, "object")).toBe(false);
    expect(matchesJsonType(null, "null")).toBe(true);
    expect(matchesJsonType("x", "date")).toBe(false);
  });
});
