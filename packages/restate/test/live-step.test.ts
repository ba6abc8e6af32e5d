// RestateDurableContext's `onLiveStep` hook (issue 36): it fires only when this execution runs a
// step's closure, never for a step Restate's journal already holds. The workflow uses it to tell
// its ReplayReconcilingJournal that a call whose end a dead worker journaled runs again. No server:
// a fake context that journals `ctx.run` results like Restate does (a recorded entry is returned
// without running the closure).
import type { WorkflowContext } from "@restatedev/restate-sdk";
import type { DurableStepOptions } from "@tinyagents/harness/durability";
import { describe, expect, it } from "vitest";
import { RestateDurableContext } from "../src/index.js";

/** The part of Restate's journal `step` uses: `ctx.run` entries by position, replayed when recorded. */
class FakeJournal {
  readonly entries: { name: string; value: unknown }[] = [];

  context(): WorkflowContext {
    let position = 0;
    const run = async (name: string, closure: () => Promise<unknown>) => {
      const recorded = this.entries[position];
      position++;
      if (recorded !== undefined) {
        expect(recorded.name).toBe(name);
        return recorded.value;
      }
      const value = await closure();
      this.entries.push({ name, value });
      return value;
    };
    return { run } as unknown as WorkflowContext;
  }
}

function execution(journal: FakeJournal, live: [string, DurableStepOptions["kind"]][]) {
  return new RestateDurableContext(journal.context(), 1_000, {
    onLiveStep: (name, options) => live.push([name, options.kind]),
  });
}

describe("RestateDurableContext onLiveStep", () => {
  it("fires for each step this execution runs, before its closure, and not for journaled steps", async () => {
    const journal = new FakeJournal();
    const first: [string, DurableStepOptions["kind"]][] = [];
    const ctx1 = execution(journal, first);
    let seenBeforeClosure: number | undefined;
    await ctx1.step(
      "model:m1",
      async () => {
        seenBeforeClosure = first.length;
        return "reply";
      },
      { kind: "model" },
    );
    expect(seenBeforeClosure).toBe(1);
    expect(first).toEqual([["model:m1", "model"]]);

    // The next execution replays model:m1 (journaled) and runs the tool step the worker lost.
    const second: [string, DurableStepOptions["kind"]][] = [];
    const ctx2 = execution(journal, second);
    let ran = 0;
    expect(
      await ctx2.step(
        "model:m1",
        async () => {
          ran++;
          return "other";
        },
        { kind: "model" },
      ),
    ).toBe("reply");
    expect(ran).toBe(0);
    await ctx2.step("result:call_email", async () => "sent", {
      kind: "result",
      idempotencyKey: "r:call_email",
    });
    expect(second).toEqual([["result:call_email", "result"]]);
  });
});
