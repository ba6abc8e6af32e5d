import type { JsonObject } from "@tinyagents/inference";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { tool } from "./define-tool.js";
import type { AnyTool, Tool, ToolExecutionContext } from "./tool.js";
import { ToolRegistry } from "./tool-registry.js";

describe("tool() types", () => {
  it("infers execute's args from a zod schema's output type", () => {
    const t = tool({
      name: "get_weather",
      description: "d",
      inputSchema: z.object({
        city: z.string(),
        unit: z.enum(["c", "f"]).default("c"),
        days: z.number().optional(),
      }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; unit: "c" | "f"; days?: number | undefined }>();
        return args.city;
      },
    });
    expectTypeOf(t).toEqualTypeOf<
      Tool<unknown, unknown, { city: string; unit: "c" | "f"; days?: number | undefined }>
    >();
  });

  it("uses the transformed output type", () => {
    tool({
      name: "count",
      description: "d",
      inputSchema: z.object({ n: z.string().transform((s) => s.length) }),
      execute: (args) => {
        expectTypeOf(args.n).toEqualTypeOf<number>();
        return args.n;
      },
    });
  });

  it("types raw JSON Schema tools with JsonObject args", () => {
    const t = tool({
      name: "raw",
      description: "d",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<JsonObject>();
        return null;
      },
    });
    expectTypeOf(t).toEqualTypeOf<Tool<unknown, unknown, JsonObject>>();
  });

  it("infers State from an annotated ctx and registers into a typed registry", () => {
    interface MyState {
      count: number;
    }
    const t = tool({
      name: "inc",
      description: "d",
      inputSchema: z.object({ by: z.number() }),
      execute: (args, ctx: ToolExecutionContext<MyState>) => {
        expectTypeOf(ctx.state.count).toEqualTypeOf<number>();
        return args.by + ctx.state.count;
      },
    });
    expectTypeOf(t).toExtend<AnyTool<MyState>>();
    const untyped = tool({ name: "noop", description: "d", inputSchema: {}, execute: () => "" });
    new ToolRegistry<MyState>().register(t).register(untyped);
  });

  it("rejects outputs that are not ToolOutput", () => {
    tool({
      name: "bad",
      description: "d",
      inputSchema: z.object({}),
      // @ts-expect-error a Date is not a ToolOutput
      execute: () => new Date(),
    });
  });
});
