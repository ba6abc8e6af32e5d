import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Message, text } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { humanApprovalMiddleware } from "../middleware/library/human-approval-middleware.js";
import { createAgent } from "../runtime/create-agent.js";
import type { RunResult } from "../runtime/run-result.js";
import { CONFORMANCE_INPUT } from "../testkit/durable-conformance/conformance-model.js";
import { type LedgerEntry, readLedger } from "../testkit/durable-conformance/execution-ledger.js";
import {
  type CrashPoint,
  ReplayDurableContext,
  type ReplayDurableOptions,
} from "../testkit/durable-conformance/replay-durable-context.js";
import {
  conformanceApprovalId,
  createConformanceAgent,
  expectedConformanceRun,
} from "../testkit/durable-conformance/scenario-agent.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { tool } from "../tool/define-tool.js";
import { approvalSignalName } from "./durable-signals.js";

// An engine whose awaited step is stored before it resolves (Restate): the model step that
// proposed a "once" call is its intent, so the call is one `result:` step (no `intent:` step).
class StoredStepEngine extends ReplayDurableContext {
  readonly modelStepIsIntent = true;
  constructor(options?: ReplayDurableOptions) {
    super(options);
  }
}

const RUN = "run-msi";
const APPROVAL = approvalSignalName(conformanceApprovalId(RUN));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function ledgerPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "model-step-intent-"));
  dirs.push(dir);
  return join(dir, "ledger.jsonl");
}

/** One "worker": a fresh harness running the scenario on `durable`; the human approves at once. */
async function live(durable: ReplayDurableContext, ledger: string): Promise<RunResult | undefined> {
  const { agent } = createConformanceAgent({ ledgerPath: ledger, modelDelayMs: 0, toolDelayMs: 0 });
  try {
    return await agent.run(CONFORMANCE_INPUT, {
      runId: RUN,
      durable,
      onEvent: (record) => {
        if (record.event.type === "approval.requested") durable.signal(APPROVAL, { decision: "approve" });
      },
    });
  } catch {
    return undefined;
  }
}

async function crashAndRecover(crash: CrashPoint) {
  const ledger = ledgerPath();
  const first = new StoredStepEngine({ crash });
  expect(await live(first, ledger)).toBeUndefined();
  expect(first.dead).toBe(true);
  const second = new StoredStepEngine({ journal: structuredClone(first.journal) });
  const result = (await live(second, ledger)) as RunResult;
  expect(result).toBeDefined();
  return { result, second, entries: readLedger(ledger) };
}

const emails = (entries: LedgerEntry[]) =>
  entries.filter((e) => e.kind === "tool" && e.callId === "call_email").length;
const emailAnswer = (result: RunResult) =>
  text(result.messages.find((m) => m.role === "tool" && m.toolCallId === "call_email") as Message);

describe("a model step stored before it resolves is the intent of the once calls it proposed", () => {
  it("an uninterrupted run journals the once call as one result step, no intent step, same transcript", async () => {
    const engine = new StoredStepEngine();
    const result = await live(engine, ledgerPath());
    expect(result?.messages).toEqual((await expectedConformanceRun(RUN)).messages);
    expect(engine.journal.order).toEqual([
      `model:${RUN}-model-1`,
      "tool:call_fetch",
      `model:${RUN}-model-2`,
      "result:call_email",
      `model:${RUN}-model-3`,
      "tool:call_deploy",
      `model:${RUN}-model-4`,
    ]);
  });

  it("crash inside the once tool: the model step replays, the call is 'outcome unknown' and never runs twice", async () => {
    const out = await crashAndRecover({ during: "result:call_email" });
    expect(emails(out.entries)).toBe(1);
    expect(emailAnswer(out.result)).toContain(
      'the outcome of tool "send_email" (call call_email) is unknown',
    );
    expect(out.second.executed).not.toContain(`model:${RUN}-model-2`);
  });

  it("crash after the model step was stored, before the tool started: 'outcome unknown', the tool never ran", async () => {
    const out = await crashAndRecover({ before: "result:call_email" });
    expect(emails(out.entries)).toBe(0);
    expect(emailAnswer(out.result)).toContain("is unknown");
  });

  it("crash inside the model step that proposes the once call: the re-executed step proposes it again and it runs once", async () => {
    const out = await crashAndRecover({ during: `model:${RUN}-model-2` });
    expect(emails(out.entries)).toBe(1);
    expect(out.result.messages).toEqual((await expectedConformanceRun(RUN)).messages);
    expect(out.second.executed).toContain("result:call_email");
    expect(out.second.executed).not.toContain("intent:call_email");
  });

  it("an engine without the property keeps the intent step (in process, DBOS)", async () => {
    const engine = new ReplayDurableContext();
    await live(engine, ledgerPath());
    expect(engine.journal.order).toContain("intent:call_email");
  });

  it("a once call gated by a human approval keeps its intent step: the approval wait is journaled after the model step", async () => {
    // Without the intent step, a worker restart during the (durable, maybe days long) wait would
    // replay the model step and answer the approved call "outcome unknown" without running it.
    let paid = 0;
    const reply = (request: { messages: Message[] }) =>
      request.messages.some((m) => m.role === "tool")
        ? "paid"
        : { toolCalls: [{ id: "call_pay", name: "pay", arguments: {} }] };
    const agent = () =>
      createAgent<unknown, undefined>({
        // Answers from the transcript: a replayed turn does not call the model.
        model: new ScriptedModel(Array(2).fill(reply)),
        tools: [
          tool<unknown, undefined>({
            name: "pay",
            description: "pay",
            sideEffects: "once",
            inputSchema: { type: "object" },
            execute: async () => {
              paid++;
              return "paid";
            },
          }),
        ],
        middleware: [humanApprovalMiddleware({ tools: ["pay"] })],
      });
    const approval = approvalSignalName("run-pay/call_pay");
    const first = new StoredStepEngine({ crash: { awaiting: approval } });
    await expect(agent().run("pay", { runId: "run-pay", durable: first })).rejects.toThrow(/worker crash/);
    const second = new StoredStepEngine({ journal: structuredClone(first.journal) });
    second.signal(approval, { decision: "approve" });
    const run = await agent().run("pay", { runId: "run-pay", durable: second });
    expect(paid).toBe(1);
    expect(text(run.messages.find((m) => m.role === "tool") as Message)).toBe("paid");
    expect(second.executed).toEqual(["intent:call_pay", "result:call_pay", "model:run-pay-model-2"]);
  });
});
