import { describe, expect, it } from "vitest";
import { resolveSchemaRef } from "./json-schema-ref.js";

describe("resolveSchemaRef", () => {
  const root = {
    $defs: { a: { type: "string" }, "x/y": { const: 1 }, "t~n": { const: 2 }, "sp ace": { const: 3 } },
    definitions: { b: { type: "number" } },
    anyOf: [{ type: "null" }],
  };

  it("resolves local pointers, with ~0/~1 and percent escapes", () => {
    expect(resolveSchemaRef(root, "#")).toBe(root);
    expect(resolveSchemaRef(root, "#/$defs/a")).toEqual({ type: "string" });
    expect(resolveSchemaRef(root, "#/definitions/b")).toEqual({ type: "number" });
    expect(resolveSchemaRef(root, "#/$defs/x~1y")).toEqual({ const: 1 });
    expect(resolveSchemaRef(root, "#/$defs/t~0n")).toEqual({ const: 2 });
    expect(resolveSchemaRef(root, "#/$defs/sp%20ace")).toEqual({ const: 3 });
    expect(resolveSchemaRef(root, "#/anyOf/0")).toEqual({ type: "null" });
  });

  it("returns undefined for remote or missing targets", () => {
    expect(resolveSchemaRef(root, "other.json#/a")).toBeUndefined();
    expect(resolveSchemaRef(root, "#/$defs/missing")).toBeUndefined();
    expect(resolveSchemaRef(root, "#/$defs/a/type/deeper")).toBeUndefined();
    expect(resolveSchemaRef(root, "#/anyOf/9")).toBeUndefined();
    expect(resolveSchemaRef(root, "#/$defs/%E0%A4%A")).toBeUndefined();
  });
});
