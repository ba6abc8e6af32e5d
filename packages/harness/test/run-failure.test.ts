import { FakeTool, runScript } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";

describe("run.failed is the run's last event", () => {
  it("comes after every onError hook and its middleware events", async () => {
    const seen: string[] = [];
    const result = await runScript({
      script: [new Error("provider exploded")],
      middleware: [{ name: "observer", onError: () => void seen.push("onError") }],
    });
    const types = result.events.types();
    expect(result.error?.message).toContain("provider exploded");
    expect(seen).toEqual(["onError"]);
    expect(types).toContain("middleware.completed");
    expect(types.at(-1)).toBe("run.failed");
    expect(result.status.status).toBe("failed");
  });

  it("aborts a sibling tool that is still running when another call fails the run", async () => {
    let sibling: AbortSignal | undefined;
    const slow = FakeTool.of("slow_tool", (_args, ctx) => {
      sibling = ctx.signal;
      return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped")));
    });
    const broken = FakeTool.failing("broken_tool", "disk on fire", { errorPolicy: "fail" });
    const result = await runScript({
      script: [{ toolCalls: [{ name: "slow_tool" }, { name: "broken_tool" }] }],
      tools: [slow, broken],
    });
    expect(result.error?.code).toBe("tool");
    expect(sibling?.aborted).toBe(true);
    expect(result.events.types().at(-1)).toBe("run.failed");
  });
});
