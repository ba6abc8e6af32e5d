import { ProviderError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { runAgent, setup } from "./harness.fixture.js";
import { type LogEntry, loggingMiddleware } from "./logging-middleware.js";

describe("loggingMiddleware", () => {
  it("logs the run's lifecycle as structured entries, metadata only", async () => {
    const { harness } = setup();
    const entries: LogEntry[] = [];
    harness
      .registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ name: "t", arguments: { secret: "hunter2" } }] }, "the answer"]),
      )
      .registerTool(FakeTool.returning("t", "tool output"))
      .use(loggingMiddleware({ logger: (entry) => entries.push(entry) }));
    await runAgent(harness, "a private question", { config: { runId: "logged" } });
    expect(entries.map((e) => `${e.level}:${e.event}`)).toEqual([
      "info:run.start",
      "debug:model.request",
      "info:model.response",
      "debug:tool.call",
      "info:tool.result",
      "debug:model.request",
      "info:model.response",
      "info:run.end",
    ]);
    expect(entries.every((e) => e.runId === "logged")).toBe(true);
    const dump = JSON.stringify(entries);
    for (const content of ["hunter2", "tool output", "the answer", "a private question"])
      expect(dump).not.toContain(content);
  });

  it("filters by level, logs failures, and is silent by default", async () => {
    const { harness } = setup({ policy: { retry: { maxRetries: 0 } } });
    const entries: LogEntry[] = [];
    harness
      .registerModel(
        "m",
        new ScriptedModel([new ProviderError({ provider: "p", message: "down", kind: "non_retryable" })]),
      )
      .use(loggingMiddleware({ logger: (entry) => entries.push(entry), level: "warn" }))
      .use(loggingMiddleware({ name: "quiet" }));
    await runAgent(harness, "hi");
    expect(entries).toEqual([
      {
        level: "error",
        event: "run.error",
        runId: expect.any(String),
        fields: { code: "provider", message: "down" },
      },
    ]);
  });

  it("rejects a bad logger or level", () => {
    expect(() => loggingMiddleware({ logger: 1 as never })).toThrow(
      expect.objectContaining({ details: { middleware: "logging", option: "logger" } }),
    );
    expect(() => loggingMiddleware({ level: "loud" as never })).toThrow(/level/);
  });
});
