import type { JsonValue } from "@tinyagents/inference";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { AgentHarness } from "../runtime/agent-harness.js";
import type { StructuredAgent, StructuredRun } from "./structured-agent.js";
import { structuredSpec } from "./structured-spec.js";

describe("withResponseFormat types", () => {
  it("infers the structured value from a zod schema's output", async () => {
    const harness = new AgentHarness<{ user: string }, undefined>();
    const agent = harness.withResponseFormat(
      z.object({ city: z.string(), population: z.number(), tags: z.array(z.string()).default([]) }),
    );
    expectTypeOf(agent).toEqualTypeOf<
      StructuredAgent<{ user: string }, undefined, { city: string; population: number; tags: string[] }>
    >();
    const run = await agent.invokeDefault({ user: "u" }, "Oslo?");
    expectTypeOf(run).toEqualTypeOf<StructuredRun<{ city: string; population: number; tags: string[] }>>();
    expectTypeOf(run.structured.city).toEqualTypeOf<string>();
    expectTypeOf(run.messages).toEqualTypeOf<StructuredRun<unknown>["messages"]>();
  });

  it("uses the transformed output type", async () => {
    const agent = new AgentHarness().withResponseFormat(
      z.object({ n: z.string().transform((s) => s.length) }),
    );
    const run = await agent.invokeDefault(undefined, "x");
    expectTypeOf(run.structured.n).toEqualTypeOf<number>();
  });

  it("types raw JSON Schema and ResponseFormat answers as JsonValue", async () => {
    const agent = new AgentHarness().withResponseFormat({ type: "object", properties: {} });
    expectTypeOf((await agent.invokeDefault(undefined, "x")).structured).toEqualTypeOf<JsonValue>();
    expectTypeOf(structuredSpec({ type: "json_object" }).validate).returns.toMatchTypeOf<unknown>();
  });

  it("keeps the harness's state type on the view", () => {
    const agent = new AgentHarness<{ user: string }, undefined>().withResponseFormat(
      z.object({ a: z.boolean() }),
    );
    // @ts-expect-error the state must match the harness's State
    void agent.invokeDefault(42, "x");
  });
});
