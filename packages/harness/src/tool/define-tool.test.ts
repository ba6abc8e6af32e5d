import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { JsonObject } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { thrownError } from "../../test/support/thrown.js";
import type { RunContext } from "../contracts/run-context.js";
import { isStandardSchema, tool } from "./define-tool.js";
import type { ToolExecutionContext } from "./tool.js";

function ctx(): ToolExecutionContext {
  return {
    state: undefined,
    run: undefined as unknown as RunContext,
    callId: "call_1",
    signal: new AbortController().signal,
    progress: () => {},
  };
}

/** A hand-written async Standard Schema (no JSON Schema support): `{ n: number }`, n must be even. */
function asyncEvenSchema(): StandardSchemaV1<{ n: number }, { n: number; half: number }> {
  return {
    "~standard": {
      version: 1,
      vendor: "handmade",
      validate: async (value) => {
        await new Promise((resolve) => setImmediate(resolve)); // settle on a later turn: truly async
        const n = (value as { n?: unknown }).n;
        if (typeof n !== "number")
          return { issues: [{ message: "expected a number", path: [{ key: "n" }] }] };
        if (n % 2 !== 0) return { issues: [{ message: "must be even", path: ["n"] }] };
        return { value: { n, half: n / 2 } };
      },
    },
  };
}

describe("tool() with a zod 4 schema", () => {
  const weather = tool({
    name: "get_weather",
    description: "Current weather for a city",
    inputSchema: z.object({
      city: z.string().describe("City name"),
      unit: z.enum(["c", "f"]).default("c"),
      days: z.number().int().min(1).optional(),
    }),
    execute: ({ city, unit }) => `${city}: 20°${unit}`,
    strict: true,
  });

  it("derives the JSON Schema once, without $schema", () => {
    expect(weather.parameters).toEqual({
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        unit: { type: "string", enum: ["c", "f"], default: "c" },
        days: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      },
      required: ["city"],
    });
    expect(weather.parameters).toBe(weather.parameters);
    expect(weather.strict).toBe(true);
  });

  it("validates with zod and hands execute the parsed output (defaults applied)", async () => {
    const ok = await weather.validate({ city: "Oslo" });
    expect(ok).toEqual({ ok: true, value: { city: "Oslo", unit: "c" } });
    if (!ok.ok) throw new Error("unreachable");
    expect(await weather.execute(ok.value, ctx())).toBe("Oslo: 20°c");
  });

  it("maps zod issues to path-prefixed messages", async () => {
    const bad = await weather.validate({ city: 3, days: 0 });
    expect(bad.ok).toBe(false);
    if (bad.ok) throw new Error("unreachable");
    expect(bad.issues).toHaveLength(2);
    expect(bad.issues[0]).toMatch(/^\$\.city: .*expected string/);
    expect(bad.issues[1]).toMatch(/^\$\.days: /);
  });

  it("keeps $defs for recursive schemas", () => {
    const Node: z.ZodType<{ name: string; children: unknown[] }> = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    const t = tool({
      name: "tree",
      description: "d",
      inputSchema: z.object({ tree: Node }),
      execute: () => "ok",
    });
    expect(t.parameters.$defs).toBeDefined();
    expect(t.parameters.$schema).toBeUndefined();
  });

  it("throws a validation error when zod cannot express the schema as JSON Schema", () => {
    const error = thrownError(() =>
      tool({ name: "when", description: "d", inputSchema: z.object({ at: z.date() }), execute: () => "x" }),
    );
    expect(error.code).toBe("validation");
    expect(error.message).toContain('tool "when"');
    expect(error.message).toContain("could not be converted to JSON Schema");
    expect(error.message).toContain("jsonSchema");
  });

  it("rejects a non-object zod schema", () => {
    const error = thrownError(() =>
      tool({ name: "echo", description: "d", inputSchema: z.string(), execute: () => "x" }),
    );
    expect(error.message).toContain("object of named arguments");
  });

  it("prefers an explicit jsonSchema", () => {
    const explicit = { type: "object", properties: { q: { type: "string" } } };
    const t = tool({
      name: "q",
      description: "d",
      inputSchema: z.object({ q: z.string() }),
      jsonSchema: explicit,
      execute: () => "",
    });
    expect(t.parameters).toEqual(explicit);
    expect(t.parameters).not.toBe(explicit);
  });
});

describe("tool() with an async Standard Schema without JSON Schema support", () => {
  it("requires an explicit jsonSchema, naming the vendor", () => {
    const error = thrownError(() =>
      tool({ name: "half", description: "d", inputSchema: asyncEvenSchema(), execute: () => "" }),
    );
    expect(error.code).toBe("validation");
    expect(error.message).toContain("handmade");
    expect(error.message).toContain("pass `jsonSchema` explicitly");
    expect(error.details).toMatchObject({ field: "inputSchema", tool: "half", vendor: "handmade" });
  });

  it("validates asynchronously and maps both path segment forms", async () => {
    const half = tool({
      name: "half",
      description: "Halve an even number",
      inputSchema: asyncEvenSchema(),
      jsonSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      execute: ({ half }) => half,
    });
    const pending = half.validate({ n: 4 });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({ ok: true, value: { n: 4, half: 2 } });
    expect(await half.validate({ n: 3 })).toEqual({ ok: false, issues: ["$.n: must be even"] });
    expect(await half.validate({})).toEqual({ ok: false, issues: ["$.n: expected a number"] });
  });

  it("turns a throwing or rejecting validator into an issue", async () => {
    const base = { description: "d", jsonSchema: { type: "object" }, execute: () => "" };
    const throwing: StandardSchemaV1 = {
      "~standard": {
        version: 1,
        vendor: "x",
        validate: () => {
          throw new Error("boom");
        },
      },
    };
    const rejecting: StandardSchemaV1 = {
      "~standard": { version: 1, vendor: "x", validate: () => Promise.reject(new Error("later")) },
    };
    expect(await tool({ ...base, name: "a", inputSchema: throwing }).validate({})).toEqual({
      ok: false,
      issues: ["$: the schema's validator threw: boom"],
    });
    expect(await tool({ ...base, name: "b", inputSchema: rejecting }).validate({})).toEqual({
      ok: false,
      issues: ["$: the schema's validator threw: later"],
    });
  });
});

describe("tool() with a raw JSON Schema", () => {
  const inputSchema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", maximum: 10 } },
    required: ["query"],
    additionalProperties: false,
  };
  const search = tool({
    name: "search",
    description: "Search the web",
    inputSchema,
    execute: (args: JsonObject) => ({ hits: [], query: args.query ?? null }),
    timeout: { ms: 5000 },
    errorPolicy: "fail",
  });

  it("keeps a plain copy of the schema without $schema", () => {
    const { $schema: _, ...rest } = inputSchema;
    expect(search.parameters).toEqual(rest);
    expect(inputSchema.$schema).toBeDefined();
  });

  it("validates synchronously with the built-in validator", () => {
    expect(search.validate({ query: "x" })).toEqual({ ok: true, value: { query: "x" } });
    expect(search.validate({ query: "", limit: 11, extra: 1 })).toEqual({
      ok: false,
      issues: [
        "$.query: expected at least 1 characters, got 0",
        "$.limit: expected <= 10, got 11",
        "$.extra: unexpected property (allowed: query, limit)",
      ],
    });
  });

  it("carries timeout and errorPolicy, and omits unset optional members", () => {
    expect(search.timeout).toEqual({ ms: 5000 });
    expect(search.errorPolicy).toBe("fail");
    expect("strict" in search).toBe(false);
    const bare = tool({ name: "bare", description: "", inputSchema: { type: "object" }, execute: () => "" });
    expect(Object.keys(bare).sort()).toEqual(["description", "execute", "name", "parameters", "validate"]);
  });

  it("rejects a non-object raw schema", () => {
    const error = thrownError(() =>
      tool({ name: "n", description: "d", inputSchema: { type: "array" }, execute: () => "" }),
    );
    expect(error.message).toContain('type "array"');
  });
});

describe("tool() definition checks", () => {
  it("checks the name", () => {
    const error = thrownError(() =>
      tool({ name: "getWeather", description: "d", inputSchema: {}, execute: () => "" }),
    );
    expect(error.details).toEqual({ field: "name", name: "getWeather" });
    expect(error.message).toContain("get_weather");
  });

  it("checks timeout, description and execute", () => {
    const base = { name: "t", description: "d", inputSchema: { type: "object" }, execute: () => "" };
    expect(thrownError(() => tool({ ...base, timeout: { ms: -1 } })).message).toContain("invalid timeout");
    expect(thrownError(() => tool({ ...base, timeout: { ms: Number.NaN } })).details).toMatchObject({
      field: "timeout",
    });
    expect(thrownError(() => tool({ ...base, description: 1 as unknown as string })).details).toMatchObject({
      field: "description",
    });
    expect(
      thrownError(() => tool({ ...base, execute: "no" as unknown as () => string })).details,
    ).toMatchObject({
      field: "execute",
    });
    expect(() => tool({ ...base, timeout: "unbounded" })).not.toThrow();
    const badPolicy = { message: 1 } as unknown as { message: string };
    expect(thrownError(() => tool({ ...base, errorPolicy: badPolicy })).details).toMatchObject({
      field: "errorPolicy",
    });
    expect(tool({ ...base, errorPolicy: { message: "lookup failed" } }).errorPolicy).toEqual({
      message: "lookup failed",
    });
  });
});

describe("isStandardSchema", () => {
  it("recognises Standard Schemas and rejects JSON Schemas", () => {
    expect(isStandardSchema(z.string())).toBe(true);
    expect(isStandardSchema(asyncEvenSchema())).toBe(true);
    expect(isStandardSchema({ type: "object" })).toBe(false);
    expect(isStandardSchema({ "~standard": {} })).toBe(false);
    expect(isStandardSchema(null)).toBe(false);
  });
});

describe("tool() runsChild", () => {
  const base = {
    name: "delegate",
    description: "runs a child",
    inputSchema: { type: "object", properties: {} },
  };
  it("carries runsChild (also with injected arguments) and refuses a non-boolean", () => {
    expect(tool({ ...base, runsChild: true, execute: () => "ok" }).runsChild).toBe(true);
    expect(tool({ ...base, execute: () => "ok" }).runsChild).toBeUndefined();
    const injected = tool({
      ...base,
      inputSchema: { type: "object", properties: { user: { type: "string" } } },
      injected: { user: () => "u1" },
      runsChild: true,
      execute: () => "ok",
    });
    expect(injected.runsChild).toBe(true);
    expect(() => tool({ ...base, runsChild: "yes" as unknown as boolean, execute: () => "ok" })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: expect.objectContaining({ field: "runsChild" }),
      }),
    );
  });
});
