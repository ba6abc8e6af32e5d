import { FakeTool, runScript } from "@tinyagents/harness/testkit";
import type { ResponseFormat } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";

const format: ResponseFormat = {
  type: "json_schema",
  name: "city_report",
  schema: {
    type: "object",
    properties: { city: { type: "string" }, population: { type: "integer", minimum: 0 } },
    required: ["city", "population"],
    additionalProperties: false,
  },
};

describe("structured output", () => {
  it("a valid final answer is parsed into run.structured and the format reaches every request", async () => {
    const { run, error, model } = await runScript({
      script: [{ toolCalls: [{ name: "lookup" }] }, '{"city": "Oslo", "population": 709000}'],
      tools: [FakeTool.returning("lookup", "709000 people")],
      policy: { responseFormat: format },
    });

    expect(error).toBeUndefined();
    expect(run.structured).toEqual({ city: "Oslo", population: 709000 });
    expect(model.requests.map((r) => r.responseFormat)).toEqual([format, format]);
    // The answer also stays in the transcript as text.
    expect(run.messages.at(-1)?.content).toEqual([
      { type: "text", text: '{"city": "Oslo", "population": 709000}' },
    ]);
  });

  it("tolerates a markdown fence around the JSON", async () => {
    const { run, error } = await runScript({
      script: ['```json\n{"city": "Bergen", "population": 291000}\n```'],
      policy: { responseFormat: format },
    });
    expect(error).toBeUndefined();
    expect(run.structured).toEqual({ city: "Bergen", population: 291000 });
  });

  it("an answer that does not match the schema fails with structured_output naming the problem", async () => {
    const { run, error, status, events } = await runScript({
      script: ['{"city": "Oslo", "population": "many"}'],
      policy: { responseFormat: format },
    });
    expect(error?.code).toBe("structured_output");
    expect(error?.message).toContain("city_report");
    expect(error?.message).toContain("population");
    expect(error?.details).toMatchObject({ format: "json_schema", schema: "city_report" });
    expect(run.structured).toBeUndefined();
    // The partial run keeps the bad answer for inspection.
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(status.status).toBe("failed");
    expect(events.types().at(-1)).toBe("run.failed");
  });

  it("an answer that is not JSON fails with structured_output", async () => {
    const { error } = await runScript({
      script: ["Oslo has about 700k people."],
      policy: { responseFormat: format },
    });
    expect(error?.code).toBe("structured_output");
    expect(error?.message).toContain("not valid JSON");
  });

  it("json_object accepts any object and rejects other JSON", async () => {
    const ok = await runScript({
      script: ['{"any": [1, 2]}'],
      policy: { responseFormat: { type: "json_object" } },
    });
    expect(ok.run.structured).toEqual({ any: [1, 2] });
    const bad = await runScript({ script: ["[1, 2]"], policy: { responseFormat: { type: "json_object" } } });
    expect(bad.error?.code).toBe("structured_output");
  });

  it("without a response format nothing is parsed", async () => {
    const { run } = await runScript({ script: ['{"city": "Oslo"}'] });
    expect(run.structured).toBeUndefined();
  });
});
