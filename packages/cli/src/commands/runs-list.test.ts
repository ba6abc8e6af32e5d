/**
 * `tinyagents runs` reads the newest runs a page at a time from the status store's order (not the
 * whole store), prints them oldest first, and prints token totals through the shared formatter.
 */
import { conformanceStatus } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";
import { openCliStore } from "../core/cli-store.js";

const { cli } = useCli("tinyagents-cli-runs-");

describe("tinyagents runs", () => {
  it("--limit N: the N newest top-level runs, oldest first; sub-agent and model-call records are not rows", async () => {
    const file = /in (\S+\.db)/.exec((await cli(["runs"])).stdout)?.[1];
    expect(file).toBeDefined();
    const store = await openCliStore(file as string);
    const usage = {
      calls: 1,
      inputTokens: 1000,
      outputTokens: 234,
      totalTokens: 1234,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    };
    for (let i = 1; i <= 5; i++)
      await store.statusStore.save(
        conformanceStatus(`run-${i}`, {
          status: "completed",
          startedAt: 1000 * i,
          updatedAt: 1000 * i + 10,
          endedAt: 1000 * i + 10,
          modelCalls: 1,
          usage,
          ...(i % 2 === 0 ? { threadId: "t-even" } : {}),
        }),
      );
    // Newer than every run, but never a row of its own.
    await store.statusStore.save(
      conformanceStatus("run-5.child", { rootRunId: "run-5", parentRunId: "run-5", startedAt: 9000 }),
    );
    await store.statusStore.save(conformanceStatus("call-1", { component: "model_call", startedAt: 9500 }));
    // A run whose model call reported no usage: its tokens are unknown, not 0.
    await store.statusStore.save(
      conformanceStatus("run-0", {
        status: "completed",
        startedAt: 500,
        updatedAt: 600,
        endedAt: 600,
        modelCalls: 1,
      }),
    );
    await store.close();

    const two = await cli(["runs", "--limit", "2"]);
    expect(two.code).toBe(0);
    expect(
      two.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ")[0]),
    ).toEqual(["run-4", "run-5"]);
    expect(two.stdout).toContain("1,234 tokens");
    const even = await cli(["runs", "--thread", "t-even"]);
    expect(
      even.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ")[0]),
    ).toEqual(["run-2", "run-4"]);
    const all = await cli(["runs", "--limit", "10"]);
    expect(
      all.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ")[0]),
    ).toEqual(["run-0", "run-1", "run-2", "run-3", "run-4", "run-5"]);
    expect(all.stdout.split("\n")[0]).toContain("unknown tokens");
  });
});
