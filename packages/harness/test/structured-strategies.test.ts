/**
 * Acceptance: structured output strategies (native, tool, auto) with the mock and scripted
 * models, the repair ladder, bounded re-asks, name collisions, and typed results.
 */

import { EventSink, parseStructured, structuredResponse } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { EventRecorder, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { MockModel, type ModelProfile, permissiveProfile } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { makeHarness } from "./helpers.js";

const City = z.object({ city: z.string(), population: z.number().int().min(0) });

const toolsOnly: ModelProfile = {
  ...permissiveProfile(),
  capabilities: { ...permissiveProfile().capabilities, nativeStructuredOutput: false },
};

describe("structured output strategies", () => {
  it("native: the provider gets a json_schema responseFormat derived from the zod schema; the typed value is returned", async () => {
    const model = MockModel.scripted(['{"city": "Oslo", "population": 709000}']);
    const { harness } = makeHarness();
    harness.registerModel("m", model);
    const run = await harness.withResponseFormat(City, { name: "city_report" }).run("Oslo?");
    expect(run.structured).toEqual({ city: "Oslo", population: 709000 });
    expect(run.structured?.city).toBe("Oslo");
    const format = model.requests[0]?.responseFormat;
    expect(format).toMatchObject({ type: "json_schema", name: "city_report" });
    expect(format?.type === "json_schema" && format.schema.required).toEqual(["city", "population"]);
    expect(model.requests[0]?.tools).toBeUndefined();
  });

  it("tool: a synthetic final-answer tool, forced when there are no other tools; the run ends on a valid call", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "final_answer", arguments: { city: "Bergen", population: 291000 } }] },
    ]);
    const { harness } = makeHarness();
    harness.registerModel("m", model);
    const run = await lowerLayer(harness.withResponseFormat(City, { strategy: "tool" })).invokeDefault(
      undefined,
      "Bergen?",
    );
    expect(run.structured).toEqual({ city: "Bergen", population: 291000 });
    const [request] = model.requests;
    expect(request?.responseFormat).toBeUndefined();
    expect(request?.tools?.map((t) => t.name)).toEqual(["final_answer"]);
    expect(request?.toolChoice).toEqual({ type: "tool", name: "final_answer" });
    // The transcript stays valid: the call is answered.
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(run.stopReason).toBe("completed");
  });

  it("tool: works beside real tools (not forced), invalid answers are re-asked with the issues, then accepted", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "lookup", arguments: {} }] },
      { toolCalls: [{ name: "final_answer", arguments: { city: "Oslo", population: -1 } }] },
      { toolCalls: [{ name: "final_answer", arguments: { city: "Oslo", population: 709000 } }] },
    ]);
    const { harness } = makeHarness();
    harness.registerModel("m", model).registerTool(FakeTool.returning("lookup", "709000"));
    const outcome = await lowerLayer(
      harness.withResponseFormat(City, { strategy: "tool", maxReasks: 1 }),
    ).invokeCollectingPartial(undefined, undefined, {}, "Oslo?");
    expect(outcome.error).toBeUndefined();
    expect(outcome.run.structured).toEqual({ city: "Oslo", population: 709000 });
    expect(model.requests[0]?.toolChoice).toBeUndefined();
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["final_answer", "lookup"]);
    const retry = model.requests[2]?.messages.at(-1);
    expect(retry?.role).toBe("tool");
    expect(JSON.stringify(retry?.content)).toContain("population");
  });

  it("tool: past maxReasks the run fails with structured_output carrying the raw arguments and the issues", async () => {
    const { harness } = makeHarness();
    harness.registerModel(
      "m",
      new ScriptedModel([{ toolCalls: [{ name: "final_answer", arguments: { city: 3 } }] }]),
    );
    const outcome = await lowerLayer(
      harness.withResponseFormat(City, { strategy: "tool" }),
    ).invokeCollectingPartial(undefined, undefined, {}, "x");
    expect(outcome.error?.code).toBe("structured_output");
    expect(outcome.error?.details).toMatchObject({
      schema: "final_answer",
      strategy: "tool",
      raw: '{"city":3}',
    });
    expect(String(outcome.error?.details?.issues)).toContain("population");
  });

  it("auto: native for a model whose profile supports it, tool for a tools-only model", async () => {
    const native = new ScriptedModel(['{"city": "A", "population": 1}'], { profile: permissiveProfile() });
    const { harness: a } = makeHarness();
    a.registerModel("m", native);
    await lowerLayer(a.withResponseFormat(City)).invokeDefault(undefined, "?");
    expect(native.requests[0]?.responseFormat?.type).toBe("json_schema");

    const toolish = new ScriptedModel(
      [{ toolCalls: [{ name: "final_answer", arguments: { city: "B", population: 2 } }] }],
      {
        profile: toolsOnly,
      },
    );
    const { harness: b } = makeHarness();
    b.registerModel("m", toolish);
    const run = await b.withResponseFormat(City).run("?");
    expect(run.structured?.city).toBe("B");
    expect(toolish.requests[0]?.tools?.[0]?.name).toBe("final_answer");
  });

  it.each([
    ["a code fence", '```json\n{"city": "Oslo", "population": 1}\n```'],
    ["prose around it", 'Here you go: {"city": "Oslo", "population": 1} Hope that helps.'],
    ["trailing commas", '{"city": "Oslo", "population": 1,}'],
    ["single quotes", "{'city': 'Oslo', 'population': 1}"],
    ["a truncated closer", '{"city": "Oslo", "population": 1'],
  ])("repairs near-JSON: %s", async (_label, answer) => {
    const { harness } = makeHarness();
    harness.registerModel("m", new ScriptedModel([answer]));
    const run = await lowerLayer(harness.withResponseFormat(City, { strategy: "native" })).invokeDefault(
      undefined,
      "?",
    );
    expect(run.structured).toEqual({ city: "Oslo", population: 1 });
  });

  it("native: an invalid answer is re-asked once with the validation error, then accepted", async () => {
    const model = new ScriptedModel(['{"city": "Oslo"}', '{"city": "Oslo", "population": 5}']);
    const { harness } = makeHarness();
    harness.registerModel("m", model);
    const recorder = new EventRecorder();
    const sink = new EventSink("reask");
    recorder.attach(sink);
    const typed = await lowerLayer(
      harness.withResponseFormat(City, { strategy: "native", maxReasks: 1 }),
    ).invokeCollectingPartial(undefined, undefined, { runId: "reask" }, "?", { events: sink });
    expect(typed.error).toBeUndefined();
    expect(typed.run.structured).toEqual({ city: "Oslo", population: 5 });
    const reask = typed.run.messages.at(-2);
    expect(reask?.role).toBe("user");
    expect(JSON.stringify(reask?.content)).toContain("population");
    expect(recorder.ofType("structured.reask")).toMatchObject([
      { strategy: "native", attempt: 1, maxReasks: 1 },
    ]);
  });

  it("native: past maxReasks the run fails with structured_output carrying the raw text and issues", async () => {
    const { harness } = makeHarness();
    harness.registerModel("m", new ScriptedModel(["not json at all", "still not json"]));
    const outcome = await lowerLayer(
      harness.withResponseFormat(City, { strategy: "native", maxReasks: 1 }),
    ).invokeCollectingPartial(undefined, undefined, {}, "?");
    expect(outcome.error?.code).toBe("structured_output");
    expect(outcome.error?.message).toContain("not valid JSON");
    expect(outcome.error?.details).toMatchObject({ raw: "still not json", strategy: "native" });
    expect(outcome.run.messages.filter((m) => m.role === "user")).toHaveLength(2);
    await expect(
      lowerLayer(harness.withResponseFormat(City, { strategy: "native" })).invokeDefault(undefined, "?"),
    ).rejects.toMatchObject({ code: "validation" }); // the script is exhausted: no hidden retries
  });

  it("rejects a schema name that collides with a registered tool, up front", async () => {
    const { harness } = makeHarness();
    harness.registerModel("m", new ScriptedModel([])).registerTool(FakeTool.returning("city_report", "x"));
    expect(() => harness.withResponseFormat(City, { name: "city_report" })).toThrow(
      /same name as a registered tool/,
    );
    // A tool registered after the view was made is caught when the run starts.
    const { harness: later } = makeHarness();
    later.registerModel("m", new ScriptedModel([]));
    const view = later.withResponseFormat(City, { name: "report" });
    later.registerTool(FakeTool.returning("report", "x"));
    await expect(lowerLayer(view).invokeDefault(undefined, "?")).rejects.toMatchObject({
      code: "validation",
    });
  });

  it("typed accessors: structuredResponse and parseStructured", async () => {
    const { harness } = makeHarness();
    harness.registerModel("m", new ScriptedModel(['{"city": "Oslo", "population": 3}', "plain"]));
    const run = await lowerLayer(harness.withResponseFormat(City)).invokeDefault(undefined, "?");
    expect(structuredResponse<{ city: string }>(run as never).city).toBe("Oslo");
    const parsed = await parseStructured(
      run as never,
      City.extend({ population: z.number().transform((n) => n * 2) }),
    );
    expect(parsed.population).toBe(6);
    const plain = await lowerLayer(harness).invokeDefault(undefined, "?");
    expect(() => structuredResponse(plain)).toThrow(/no structured answer/);
  });
});
