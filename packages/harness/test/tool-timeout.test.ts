import { runText } from "@tinyagents/harness";
import { FakeTool, runScript, ScriptedModel } from "@tinyagents/harness/testkit";
import { ToolTimeoutSettings } from "@tinyagents/harness/tool";
import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting, toolMessages } from "./helpers.js";

// Small budgets (on the run's DeterministicClock): inherited 15 ms, min 1 ms, max 1 s, no grace.
const fast = () => new ToolTimeoutSettings(15, 1, 1_000, 0);

describe("tool timeouts", () => {
  it("a hanging tool times out into an error result and the loop continues", async () => {
    const hanging = FakeTool.hanging("slow_api");
    let seenSignal: AbortSignal | undefined;
    const probe = FakeTool.of("probe", (_a, ctx) => {
      seenSignal = ctx.signal;
      return "ok";
    });
    const { run, error, events, status, model } = await runScript({
      script: [
        { toolCalls: [{ name: "slow_api", id: "t1" }] },
        { toolCalls: [{ name: "probe" }] },
        "moved on",
      ],
      tools: [hanging, probe],
      harnessOptions: { toolTimeouts: fast() },
    });

    expect(error).toBeUndefined();
    expect(runText(run)).toBe("moved on");
    expect(model.callCount).toBe(3);
    const [timedOut] = toolMessages(run.messages);
    expect(timedOut?.toolCallId).toBe("t1");
    expect(timedOut?.isError).toBe(true);
    expect(text(timedOut)).toContain("timed out after 15 ms");
    const failed = events.ofType("tool.failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ callId: "t1", toolName: "slow_api", error: { code: "timeout" } });
    // The timeout belongs to that call only: the run was not cancelled.
    expect(seenSignal?.aborted).toBe(false);
    expect(status.status).toBe("completed");
  });

  it("withToolTimeoutSettings and a per-tool { ms } timeout apply; the grace is not added", async () => {
    const { harness } = makeHarness();
    const hanging = FakeTool.hanging("slow_api", { timeout: { ms: 5 } });
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "slow_api" }] }, "ok"]))
      .registerTool(hanging)
      // No inherited timeout; 3 ms of grace only bound the wait for a tool that ignores its signal.
      .withToolTimeoutSettings(new ToolTimeoutSettings(0, 1, 1_000, 3));
    const { run, error } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("ok");
    expect(text(toolMessages(run.messages)[0])).toContain(
      'tool "slow_api" timed out after 5 ms (its signal was aborted; a tool that ignores it is abandoned after a further 3 ms grace)',
    );
  });

  it('an "unbounded" tool is not cut off by the inherited timeout', async () => {
    const slowButFine = FakeTool.of(
      "slow_but_fine",
      async (_args, ctx) => {
        await ctx.run.clock.sleep(30); // 6x the inherited 5 ms timeout, on the run's virtual clock
        return "made it";
      },
      { timeout: "unbounded" },
    );
    const { run, error } = await runScript({
      script: [{ toolCalls: [{ name: "slow_but_fine" }] }, "ok"],
      tools: [slowButFine],
      harnessOptions: { toolTimeouts: fast() },
    });
    expect(error).toBeUndefined();
    expect(text(toolMessages(run.messages)[0])).toBe("made it");
  });

  it("a timed-out tool that ignores its signal does not hold up the loop", async () => {
    const stubborn = FakeTool.ignoringAbort("stubborn");
    const { run, error } = await runScript({
      script: [{ toolCalls: [{ name: "stubborn" }] }, "ok"],
      tools: [stubborn],
      harnessOptions: { toolTimeouts: fast() },
    });
    expect(error).toBeUndefined();
    expect(toolMessages(run.messages)[0]?.isError).toBe(true);
  });
});
