import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { toolMessages } from "../../../test/helpers.js";
import { runText } from "../../agent-loop/agent-run.js";
import type { EventRecord } from "../../contracts/agent-event.js";
import type { AwaitSignalOptions, DurableValue } from "../../contracts/durable-context.js";
import { approvalSignalName } from "../../durability/durable-signals.js";
import { lowerLayer } from "../../runtime/lower-layer.js";
import { ReplayDurableContext } from "../../testkit/durable-conformance/replay-durable-context.js";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel, type ScriptStep } from "../../testkit/scripted-model.js";
import { type ApprovalWait, approvalArgumentsHash } from "./approval-binding.js";
import { ApprovalBook } from "./approval-book.js";
import { runAgent, setup } from "./harness.fixture.js";
import { humanApprovalMiddleware } from "./human-approval-middleware.js";

const toolTurn = () => ({
  toolCalls: [
    { name: "lookup", id: "c1" },
    { name: "transfer", id: "c2", arguments: { amount: 100 } },
  ],
});

function scenario(
  options: Parameters<typeof humanApprovalMiddleware>[0] = {},
  script: ScriptStep[] = [toolTurn(), "all done"],
) {
  const { harness } = setup();
  const transfer = FakeTool.returning("transfer", "sent $100", { policy: { requiresApproval: true } });
  const lookup = FakeTool.returning("lookup", "balance $500");
  const approval = humanApprovalMiddleware(options);
  harness
    .registerModel("m", new ScriptedModel(script))
    .registerTool(transfer)
    .registerTool(lookup)
    .use(approval);
  return { harness, transfer, lookup, approval };
}

describe("humanApprovalMiddleware", () => {
  it("pauses before a call that needs approval; approve + resume runs it", async () => {
    const { harness, transfer, lookup, approval } = scenario();
    const first = await runAgent(harness, "pay the bill", { config: { runId: "pay" } });
    expect(first.error).toBeUndefined();
    expect(first.run.stopReason).toBe("interrupted");
    expect(transfer.callCount + lookup.callCount).toBe(0);
    expect(first.events.ofType("approval.requested")).toEqual([
      {
        type: "approval.requested",
        approvalId: "pay/c2",
        callId: "c2",
        toolName: "transfer",
        // Bound to the exact call: the hash of the tool name and arguments (key order ignored).
        argumentsHash: approvalArgumentsHash("transfer", { amount: 100 }),
      },
    ]);
    expect(approvalArgumentsHash("transfer", { amount: 100 })).toMatch(/^[0-9a-f]{64}$/);
    expect(approvalArgumentsHash("transfer", { amount: 101 })).not.toBe(
      approvalArgumentsHash("transfer", { amount: 100 }),
    );
    expect(approvalArgumentsHash("refund", { amount: 100 })).not.toBe(
      approvalArgumentsHash("transfer", { amount: 100 }),
    );
    expect(first.events.ofType("run.interrupted")[0]?.reason).toContain("pay/c2");
    expect(approval.pending()).toEqual([
      expect.objectContaining({
        id: "pay/c2",
        toolName: "transfer",
        arguments: { amount: 100 },
        status: "pending",
      }),
    ]);
    expect(first.run.paused?.pendingToolCalls.map((c) => c.id)).toEqual(["c1", "c2"]);

    approval.approve("pay/c2");
    const paused = first.run.paused;
    if (paused === undefined) throw new Error("expected a paused run");
    const resumed = await lowerLayer(harness).resume(undefined, undefined, paused);
    expect(transfer.callCount).toBe(1);
    expect(lookup.callCount).toBe(1);
    expect(runText(resumed)).toBe("all done");
    expect(approval.pending()).toEqual([]);
    expect(approval.approvals.get("pay/c2")).toMatchObject({ status: "approved", used: true });
  });

  it("an approval is good for one call: the same call asked again needs a new approval", async () => {
    const { harness, transfer, approval } = scenario({}, [toolTurn(), toolTurn(), "unused"]);
    const first = await runAgent(harness, "pay", { config: { runId: "once" } });
    approval.approve("once/c2");
    const paused = first.run.paused;
    if (paused === undefined) throw new Error("expected a paused run");
    const again = await lowerLayer(harness).resume(undefined, undefined, paused);
    expect(transfer.callCount).toBe(1);
    expect(again.stopReason).toBe("interrupted");
    expect(approval.pending().map((r) => r.id)).toEqual(["once/c2#2"]);
    expect(approval.approvals.get("once/c2")).toMatchObject({ status: "approved", used: true });
  });

  it("reject + resume answers the call with the reason instead of running it", async () => {
    const { harness, transfer, approval } = scenario();
    const first = await runAgent(harness, "pay", { config: { runId: "r" } });
    approval.reject("r/c2", "amount too high");
    const paused = first.run.paused;
    if (paused === undefined) throw new Error("expected a paused run");
    const resumed = await lowerLayer(harness).resume(undefined, undefined, paused);
    expect(transfer.callCount).toBe(0);
    const answer = toolMessages(resumed.messages).find((m) => m.toolCallId === "c2");
    expect(answer?.isError).toBe(true);
    expect(text(answer)).toContain("amount too high");
  });

  it("resuming while the request is still pending fails with validation naming it", async () => {
    const { harness, transfer } = scenario();
    const first = await runAgent(harness, "pay", { config: { runId: "p" } });
    const paused = first.run.paused;
    if (paused === undefined) throw new Error("expected a paused run");
    await expect(lowerLayer(harness).resume(undefined, undefined, paused)).rejects.toMatchObject({
      code: "validation",
      details: { approvalId: "p/c2" },
    });
    expect(transfer.callCount).toBe(0);
  });

  it("decide settles requests without a human", async () => {
    const { harness, transfer } = scenario({
      decide: (record) => (record.arguments.amount === 100 ? "approve" : undefined),
    });
    const { run, error, events } = await runAgent(harness, "pay");
    expect(error).toBeUndefined();
    expect(run.stopReason).toBe("completed");
    expect(transfer.callCount).toBe(1);
    expect(events.ofType("approval.requested")).toEqual([]);
  });

  it("the book is plain JSON: another process can decide and resume", async () => {
    const { harness, approval } = scenario({ tools: ["transfer"] });
    const first = await runAgent(harness, "pay", { config: { runId: "x" } });
    const stored = JSON.parse(
      JSON.stringify({ paused: first.run.paused, approvals: approval.approvals.toJSON() }),
    );

    const book = new ApprovalBook(stored.approvals);
    book.approve("x/c2");
    // The other process's model continues from after the tool turn.
    const other = scenario({ approvals: book }, ["all done"]);
    const resumed = await lowerLayer(other.harness).resume(undefined, undefined, stored.paused);
    expect(other.transfer.callCount).toBe(1);
    expect(runText(resumed)).toBe("all done");
  });

  it("on a journaled run, opens the approval at the engine before announcing it, and waits bound to it", async () => {
    const order: string[] = [];
    const waits: unknown[] = [];
    // An engine that checks decisions: records when the approval is opened and what each wait is for.
    class CheckingEngine extends ReplayDurableContext {
      async openApproval(wait: ApprovalWait): Promise<void> {
        order.push(`open ${wait.approvalId}`);
      }
      override awaitSignal<T extends DurableValue>(name: string, options?: AwaitSignalOptions) {
        waits.push(options?.approval);
        return super.awaitSignal<T>(name, options);
      }
    }
    const durable = new CheckingEngine();
    const { harness, transfer } = scenario();
    const result = await harness.run("pay", {
      runId: "pay",
      durable,
      onEvent: (record: EventRecord) => {
        if (record.event.type !== "approval.requested") return;
        order.push(`event ${record.event.approvalId}`);
        durable.signal(approvalSignalName(record.event.approvalId), { decision: "approve" });
      },
    });
    expect(result.stopReason).toBe("completed");
    expect(transfer.callCount).toBe(1);
    expect(order).toEqual(["open pay/c2", "event pay/c2"]);
    const wait = {
      approvalId: "pay/c2",
      callId: "c2",
      toolName: "transfer",
      argumentsHash: approvalArgumentsHash("transfer", { amount: 100 }),
    };
    expect(waits).toEqual([wait]);
  });

  it("decisions name real pending requests and are final", () => {
    const book = new ApprovalBook();
    expect(() => book.approve("nope")).toThrow(expect.objectContaining({ code: "validation" }));
    const approval = humanApprovalMiddleware({ approvals: book });
    expect(approval.approvals).toBe(book);
    expect(() => new ApprovalBook([{ id: 1 } as never])).toThrow(/malformed/);
  });

  it("rejects bad options at construction", () => {
    expect(() => humanApprovalMiddleware({ tools: [""] })).toThrow(
      expect.objectContaining({ details: { middleware: "human_approval", option: "tools" } }),
    );
    expect(() => humanApprovalMiddleware({ approvals: {} as never })).toThrow(/approvals/);
  });
});
