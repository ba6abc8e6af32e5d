import type { Message, UsageTotals } from "@tinyagents/inference";
import type { CostTotals } from "../../cost/cost.js";
import { approvalArgumentsHash } from "../../middleware/library/approval-binding.js";
import { ApprovalBook, type ApprovalRecord } from "../../middleware/library/approval-book.js";
import {
  type HumanApprovalMiddleware,
  humanApprovalMiddleware,
} from "../../middleware/library/human-approval-middleware.js";
import type { Middleware } from "../../middleware/middleware.js";
import type { AgentHarness } from "../../runtime/agent-harness.js";
import { createAgent } from "../../runtime/create-agent.js";
import { tool } from "../../tool/define-tool.js";
import type { AnyTool, ToolExecutionContext } from "../../tool/tool.js";
import { CONFORMANCE_CALLS, CONFORMANCE_INPUT, ConformanceModel } from "./conformance-model.js";
import { ExecutionLedger } from "./execution-ledger.js";

/**
 * Options of the conformance scenario: plain JSON, so a worker process (a Restate or DBOS worker,
 * a child spawned by a test) builds exactly the same agent from what the test hands it.
 */
export interface ConformanceScenarioOptions {
  /** The execution ledger file (see `ExecutionLedger`); omitted: nothing is recorded. */
  ledgerPath?: string;
  /** How long each model call takes, on the run's clock (default 50 ms). */
  modelDelayMs?: number;
  /** How long each tool call takes, on the run's clock (default 20 ms). */
  toolDelayMs?: number;
  /**
   * Approve the `deploy` call by rule instead of asking a human (default false: a human decides,
   * by resuming the paused run in process, or with the `approvalSignalName` signal on an engine).
   */
  autoApprove?: boolean;
  /**
   * The approval book's records to start from (`approval.approvals.toJSON()` saved beside a
   * paused run): a process resuming a run paused for approval in another process passes them.
   */
  approvals?: ApprovalRecord[];
}

/** The built scenario: the agent, and its approval middleware (`approve(id)` in process). */
export interface ConformanceScenario {
  agent: AgentHarness<unknown, undefined>;
  approval: HumanApprovalMiddleware<unknown, undefined>;
  /** The ledger the model and tools write to (when `ledgerPath` was given). */
  ledger?: ExecutionLedger;
}

/** Registry name of the scenario's model. */
export const CONFORMANCE_MODEL = "conformance";

/** Prices of the scenario's model, so runs have a known cost. */
export const CONFORMANCE_PRICING = { inputPerMillion: 3, outputPerMillion: 15 };

/** The id of the approval a conformance run `runId` waits for (the `deploy` call): `<runId>/call_deploy`. */
export function conformanceApprovalId(runId: string): string {
  return `${runId}/${(CONFORMANCE_CALLS[2] as { id: string }).id}`;
}

/**
 * The `argumentsHash` of the call a conformance run's approval is for (the `deploy` call), as its
 * `approval.requested` event carries it: what an engine client's `approve` must name.
 */
export const CONFORMANCE_APPROVAL_HASH: string = (() => {
  const deploy = CONFORMANCE_CALLS[2] as {
    name: string;
    arguments: Parameters<typeof approvalArgumentsHash>[1];
  };
  return approvalArgumentsHash(deploy.name, deploy.arguments);
})();

/**
 * The engine-neutral conformance scenario of issue 18: one agent that Restate, DBOS and the
 * in-process loop all run, SIGKILLed at chosen points, with every execution counted.
 *
 * The run (prompt {@link CONFORMANCE_INPUT}): a fake model (`modelDelayMs` per call) asks over
 * three turns for `fetch_order` (at-least-once, `toolDelayMs`), `send_email` (`sideEffects:
 * "once"`) and `deploy` (at-least-once, needs a human's approval), then answers with a text
 * quoting the three results. Call ids are fixed (`call_fetch`, `call_email`, `call_deploy`) and
 * every answer is a pure function of the transcript, so a run re-driven on another worker asks
 * for the same things. Each model call (inside its model step) and each tool execution (before
 * its work) appends one line to the ledger. Compare a finished run with `expectedConformanceRun`
 * and judge the ledger with `checkLedger`.
 */
export function createConformanceAgent(options: ConformanceScenarioOptions = {}): ConformanceScenario {
  const modelDelayMs = options.modelDelayMs ?? 50;
  const toolDelayMs = options.toolDelayMs ?? 20;
  const ledger = options.ledgerPath === undefined ? undefined : new ExecutionLedger(options.ledgerPath);
  const approval = humanApprovalMiddleware<unknown, undefined>({
    tools: ["deploy"],
    approvals: new ApprovalBook(options.approvals ?? []),
    ...(options.autoApprove === true ? { decide: () => "approve" as const } : {}),
  });
  const middleware: Middleware<unknown, undefined>[] = [approval];
  if (ledger !== undefined) middleware.push(modelLedger(ledger));
  const agent = createAgent({
    model: new ConformanceModel(modelDelayMs),
    modelName: CONFORMANCE_MODEL,
    pricing: CONFORMANCE_PRICING,
    instructions: "You run operations tasks step by step.",
    tools: [
      scenarioTool("fetch_order", "at-least-once", toolDelayMs, ledger, (a) => `order ${a.order}: 3 items`),
      scenarioTool("send_email", "once", toolDelayMs, ledger, (a) => `email sent to ${a.to}`),
      scenarioTool("deploy", "at-least-once", toolDelayMs, ledger, (a) => `deployed to ${a.env}`),
    ],
    middleware,
  });
  const scenario: ConformanceScenario = { agent, approval };
  if (ledger !== undefined) scenario.ledger = ledger;
  return scenario;
}

/** What an uninterrupted conformance run ends with. */
export interface ExpectedConformanceRun {
  messages: Message[];
  usage: UsageTotals;
  cost: CostTotals;
  modelCalls: number;
  toolCalls: number;
}

/**
 * The outcome of an uninterrupted run `runId` of the scenario (in process, approved by rule, no
 * delays, nothing recorded): its transcript and totals, as JSON. A run that survived crashes on
 * any engine must end with exactly these.
 */
export async function expectedConformanceRun(runId: string): Promise<ExpectedConformanceRun> {
  const { agent } = createConformanceAgent({ autoApprove: true, modelDelayMs: 0, toolDelayMs: 0 });
  const run = await agent.run(CONFORMANCE_INPUT, { runId });
  return structuredClone({
    messages: run.messages,
    usage: run.usage,
    cost: run.cost,
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
  });
}

/** The transcript of an uninterrupted run `runId` of the scenario (see `expectedConformanceRun`). */
export async function expectedTranscript(runId: string): Promise<Message[]> {
  return (await expectedConformanceRun(runId)).messages;
}

/** Records each model call, inside the model step (it wraps the provider call). */
function modelLedger(ledger: ExecutionLedger): Middleware<unknown, undefined> {
  return {
    name: "conformance_ledger",
    wrapModelCall(ctx, request, next) {
      ledger.record({ kind: "model", runId: ctx.run.runId, callId: ctx.callId ?? "", pid: process.pid });
      return next(request);
    },
  };
}

function scenarioTool(
  name: string,
  sideEffects: "at-least-once" | "once",
  delayMs: number,
  ledger: ExecutionLedger | undefined,
  answer: (args: Record<string, unknown>) => string,
): AnyTool<unknown, undefined> {
  return tool<unknown, undefined>({
    name,
    description: `Conformance scenario tool ${name}`,
    sideEffects,
    inputSchema: { type: "object", additionalProperties: { type: "string" } },
    execute: async (args, ctx: ToolExecutionContext<unknown, undefined>) => {
      const idempotencyKey = ctx.idempotencyKey ?? "";
      // Before the work: a SIGKILL during the delay below still leaves this execution counted.
      ledger?.record({
        kind: "tool",
        runId: ctx.run.runId,
        callId: ctx.callId,
        tool: name,
        sideEffects,
        idempotencyKey,
        pid: process.pid,
      });
      if (delayMs > 0) await ctx.run.clock.sleep(delayMs, ctx.signal);
      return `${answer(args)} (key ${idempotencyKey})`;
    },
  });
}
