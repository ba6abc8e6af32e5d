import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Message, text } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import type { RunResult } from "../runtime/run-result.js";
import { checkLedger } from "../testkit/durable-conformance/check-ledger.js";
import { CONFORMANCE_INPUT, conformanceReply } from "../testkit/durable-conformance/conformance-model.js";
import { type LedgerEntry, readLedger } from "../testkit/durable-conformance/execution-ledger.js";
import {
  type CrashPoint,
  type DurableJournal,
  journaledCallKeys,
  ReplayDurableContext,
} from "../testkit/durable-conformance/replay-durable-context.js";
import {
  conformanceApprovalId,
  createConformanceAgent,
  expectedConformanceRun,
} from "../testkit/durable-conformance/scenario-agent.js";
import { approvalSignalName } from "./durable-signals.js";

const RUN = "run-dur";
const APPROVAL = approvalSignalName(conformanceApprovalId(RUN));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function ledgerPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "durable-replay-"));
  dirs.push(dir);
  return join(dir, "ledger.jsonl");
}

interface Life {
  result?: RunResult;
  error?: unknown;
  events: EventRecord[];
}

/**
 * One "worker" running the scenario on `durable`, with a fresh harness (as a new process would
 * build it). With `approve`, the human approves as soon as the run asks (the engine's signal).
 */
async function live(
  durable: ReplayDurableContext,
  ledger: string,
  streaming = false,
  approve = true,
): Promise<Life> {
  const { agent } = createConformanceAgent({ ledgerPath: ledger, modelDelayMs: 0, toolDelayMs: 0 });
  const events: EventRecord[] = [];
  const onEvent = (record: EventRecord) => {
    events.push(record);
    if (approve && record.event.type === "approval.requested")
      durable.signal(APPROVAL, { decision: "approve" });
  };
  try {
    if (streaming) {
      const stream = agent.stream(CONFORMANCE_INPUT, { runId: RUN, durable, onEvent });
      for await (const _item of stream) {
        // drain: deltas reach the live stream only
      }
      return { result: await stream.result, events };
    }
    return { result: await agent.run(CONFORMANCE_INPUT, { runId: RUN, durable, onEvent }), events };
  } catch (error) {
    return { error, events };
  }
}

/** Crash a first worker at `crash`, then recover from its truncated journal on a fresh one. */
async function crashAndRecover(crash: CrashPoint, streaming = false) {
  const ledger = ledgerPath();
  const first = new ReplayDurableContext({ crash });
  const died = await live(first, ledger, streaming);
  expect(first.dead).toBe(true);
  expect(died.result).toBeUndefined();
  const journal: DurableJournal = structuredClone(first.journal);
  const entriesBefore = readLedger(ledger).length;
  const second = new ReplayDurableContext({ journal });
  const recovered = await live(second, ledger, streaming);
  if (recovered.error !== undefined) throw recovered.error;
  const result = recovered.result as RunResult;
  return { result, journal, second, entries: readLedger(ledger), entriesBefore, events: recovered.events };
}

function countOf(entries: LedgerEntry[], kind: string, callId: string): number {
  return entries.filter((e) => e.kind === kind && e.callId === callId).length;
}

describe("one loop through the durable seam: crash, then replay from the journal", () => {
  it("an uninterrupted run on the replay engine journals one step per model turn and per tool call, and matches the in-process run", async () => {
    const ledger = ledgerPath();
    const engine = new ReplayDurableContext();
    const { result } = await live(engine, ledger);
    const expected = await expectedConformanceRun(RUN);
    expect(result?.messages).toEqual(expected.messages);
    expect(engine.journal.order).toEqual([
      `model:${RUN}-model-1`,
      "tool:call_fetch",
      `model:${RUN}-model-2`,
      "intent:call_email",
      "result:call_email",
      `model:${RUN}-model-3`,
      "tool:call_deploy",
      `model:${RUN}-model-4`,
    ]);
    expect(engine.journal.signals).toEqual({ [APPROVAL]: { decision: "approve" } });
    // The tool step carries the idempotency key; the model step's value re-applies the turn.
    const turn = engine.journal.steps[`model:${RUN}-model-1`] as { value: Record<string, unknown> };
    expect(Object.keys(turn.value).sort()).toEqual(["cost", "response", "servedBy", "usage"]);
    expect(checkLedger(readLedger(ledger), { crashes: 0 }).duplicates).toBe(0);
  });

  it("crash inside a model step: the turn runs again (once), completed steps are replayed, totals equal the uninterrupted run", async () => {
    const out = await crashAndRecover({ during: `model:${RUN}-model-2` });
    const expected = await expectedConformanceRun(RUN);
    expect(out.result.messages).toEqual(expected.messages);
    expect(out.result.usage).toEqual(expected.usage);
    expect(out.result.cost).toEqual(expected.cost);
    expect(out.result.modelCalls).toBe(expected.modelCalls);
    expect(out.result.toolCalls).toBe(expected.toolCalls);
    // Replay executed only what the journal lacked.
    expect(out.second.executed).toEqual([
      `model:${RUN}-model-2`,
      "intent:call_email",
      "result:call_email",
      `model:${RUN}-model-3`,
      "tool:call_deploy",
      `model:${RUN}-model-4`,
    ]);
    expect(countOf(out.entries, "model", `${RUN}-model-2`)).toBe(2);
    checkLedger(out.entries, { completed: journaledCallKeys(out.journal, RUN) });
  });

  it("crash inside an at-least-once tool step: it runs once more with the same idempotency key, nothing else repeats", async () => {
    const out = await crashAndRecover({ during: "tool:call_fetch" });
    const expected = await expectedConformanceRun(RUN);
    expect(out.result.messages).toEqual(expected.messages);
    expect(out.result.usage).toEqual(expected.usage);
    expect(out.result.cost).toEqual(expected.cost);
    const fetches = out.entries.filter((e) => e.callId === "call_fetch");
    expect(fetches.map((e) => e.idempotencyKey)).toEqual([`${RUN}:call_fetch`, `${RUN}:call_fetch`]);
    expect(countOf(out.entries, "model", `${RUN}-model-1`)).toBe(1);
    const summary = checkLedger(out.entries, { completed: journaledCallKeys(out.journal, RUN) });
    expect(summary.duplicates).toBe(1);
  });

  it("crash inside a once tool's call: the replay answers 'outcome unknown' and never runs it a second time", async () => {
    const out = await crashAndRecover({ during: "result:call_email" });
    expect(countOf(out.entries, "tool", "call_email")).toBe(1);
    const email = out.result.messages.find(
      (m) => m.role === "tool" && m.toolCallId === "call_email",
    ) as Message;
    expect(text(email)).toContain('the outcome of tool "send_email" (call call_email) is unknown');
    // The rest of the run goes on from there: the final answer is the model's answer to that transcript.
    const beforeFinal = out.result.messages.slice(0, -1);
    expect(out.result.messages.at(-1)).toEqual(conformanceReply(beforeFinal).message);
    checkLedger(out.entries, { completed: journaledCallKeys(out.journal, RUN) });
  });

  it("crash after a once tool's result was journaled: the replay returns the recorded result, the tool ran once", async () => {
    const out = await crashAndRecover({ before: `model:${RUN}-model-3` });
    const expected = await expectedConformanceRun(RUN);
    expect(out.result.messages).toEqual(expected.messages);
    expect(countOf(out.entries, "tool", "call_email")).toBe(1);
    expect(out.second.executed).not.toContain("result:call_email");
    checkLedger(out.entries, { completed: journaledCallKeys(out.journal, RUN) });
  });

  it("crash during the human wait: the new worker waits again, the human's signal completes it, the transcript is the uninterrupted one", async () => {
    const ledger = ledgerPath();
    const first = new ReplayDurableContext({ crash: { awaiting: APPROVAL } });
    const died = await live(first, ledger, false, false);
    expect(died.error).toBeDefined();
    expect(died.events.filter((r) => r.event.type === "approval.requested")).toHaveLength(1);
    expect(first.journal.signals).toEqual({});
    const second = new ReplayDurableContext({ journal: first.journal });
    const recovered = await live(second, ledger);
    const expected = await expectedConformanceRun(RUN);
    expect(recovered.result?.messages).toEqual(expected.messages);
    expect(recovered.result?.usage).toEqual(expected.usage);
    expect(recovered.result?.cost).toEqual(expected.cost);
    // Nothing before the wait ran again: three model turns and two tools were replayed.
    expect(second.executed).toEqual(["tool:call_deploy", `model:${RUN}-model-4`]);
    const entries = readLedger(ledger);
    expect(checkLedger(entries, { completed: journaledCallKeys(first.journal, RUN) }).duplicates).toBe(0);
  });

  it("a rejection signal answers the deploy call with the reviewer's reason and the tool never runs", async () => {
    const ledger = ledgerPath();
    const engine = new ReplayDurableContext();
    engine.signal(APPROVAL, { decision: "reject", reason: "change freeze" });
    const { agent } = createConformanceAgent({ ledgerPath: ledger, modelDelayMs: 0, toolDelayMs: 0 });
    const run = await agent.run(CONFORMANCE_INPUT, { runId: RUN, durable: engine });
    const deploy = run.messages.find((m) => m.role === "tool" && m.toolCallId === "call_deploy") as Message;
    expect(text(deploy)).toContain("a human reviewer rejected this call: change freeze");
    expect(countOf(readLedger(ledger), "tool", "call_deploy")).toBe(0);
    expect(run.stopReason).toBe("completed");
  });

  it("streaming runs share the loop: a crash inside a tool step replays to the same transcript, deltas only live", async () => {
    const out = await crashAndRecover({ during: "tool:call_deploy" }, true);
    const expected = await expectedConformanceRun(RUN);
    expect(out.result.messages).toEqual(expected.messages);
    expect(out.result.usage).toEqual(expected.usage);
    // Replayed turns emit no model events: only the last turn's model call ran on the new worker.
    const started = out.events.filter((r) => r.event.type === "model.started").map((r) => r.event);
    expect(started).toHaveLength(1);
    expect(out.events.some((r) => r.event.type === "model.text_delta")).toBe(true);
    checkLedger(out.entries, { completed: journaledCallKeys(out.journal, RUN) });
  });
});
