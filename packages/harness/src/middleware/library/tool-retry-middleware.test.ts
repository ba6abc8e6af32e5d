import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { toolMessages } from "../../../test/helpers.js";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { ToolRegistry } from "../../tool/tool-registry.js";
import { runAgent, setup } from "./harness.fixture.js";
import { toolRetryMiddleware } from "./tool-retry-middleware.js";

/** A tool failing its first `failures` calls, then answering "ok". */
function flaky(name: string, failures: number, options: { idempotent?: boolean; delayMs?: number } = {}) {
  let calls = 0;
  return FakeTool.of(
    name,
    () => {
      if (++calls <= failures) throw new Error(`flake ${calls}`);
      return "ok";
    },
    options,
  );
}

describe("toolRetryMiddleware", () => {
  it("retries an idempotent tool with backoff until it succeeds", async () => {
    const { harness, clock } = setup();
    const tool = flaky("lookup", 2, { idempotent: true });
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "lookup" }] }, "done"]))
      .registerTool(tool)
      .use(toolRetryMiddleware());
    const { run, error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(tool.callCount).toBe(3);
    expect(text(toolMessages(run.messages)[0])).toBe("ok");
    expect(events.ofType("tool.retry_scheduled").map((e) => [e.toolName, e.attempt, e.delayMs])).toEqual([
      ["lookup", 2, 200],
      ["lookup", 3, 400],
    ]);
    expect(events.ofType("tool.retry_scheduled")[0]?.error).toContain("flake 1");
    expect(clock.sleeps).toEqual([200, 400]);
  });

  it("leaves tools that are not idempotent alone", async () => {
    const { harness } = setup();
    const tool = flaky("send_email", 1);
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "send_email" }] }, "done"]))
      .registerTool(tool)
      .use(toolRetryMiddleware());
    const ran = await runAgent(harness, "hi");
    expect(tool.callCount).toBe(1);
    expect(ran.events.ofType("tool.retry_scheduled")).toEqual([]);
  });

  it("returns the last error result when retries run out (cap reached)", async () => {
    const { harness } = setup();
    const tool = flaky("lookup", 10, { idempotent: true });
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "lookup" }] }, "done"]))
      .registerTool(tool)
      .use(toolRetryMiddleware({ policy: { maxRetries: 1, initialBackoffMs: 5 } }));
    const { run, error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(tool.callCount).toBe(2);
    expect(toolMessages(run.messages)[0]?.isError).toBe(true);
    expect(events.ofType("tool.retry_scheduled")).toHaveLength(1);
  });

  it("keeps parallel calls parallel", async () => {
    const { harness } = setup();
    const tool = FakeTool.returning("slow", "ok", { idempotent: true, delayMs: 50 });
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "slow" }, { name: "slow" }] }, "done"]))
      .registerTool(tool)
      .use(toolRetryMiddleware());
    await runAgent(harness, "hi");
    expect(tool.maxConcurrent).toBe(2);
  });

  it("validates tool names (with a registry at construction, else at first use) and the policy", async () => {
    const registry = new ToolRegistry([FakeTool.returning("known", "ok")]);
    expect(() => toolRetryMiddleware({ tools: ["unknown"], registry })).toThrow(
      expect.objectContaining({ code: "validation", details: expect.objectContaining({ option: "tools" }) }),
    );
    expect(() => toolRetryMiddleware({ policy: { maxRetries: -2 } })).toThrow(/policy\.maxRetries/);

    const { harness } = setup();
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "known" }] }]))
      .registerTool(FakeTool.returning("known", "ok"))
      .use(toolRetryMiddleware({ tools: ["knwon"] }));
    const { error } = await runAgent(harness, "hi");
    expect(error?.code).toBe("validation");
    expect(error?.message).toContain("knwon");
  });
});
