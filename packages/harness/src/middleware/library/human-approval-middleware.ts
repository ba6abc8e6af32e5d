import { TinyAgentsError, type ToolCall } from "@tinyagents/inference";
import type { ApprovalWait } from "../../contracts/durable-context.js";
import {
  type ApprovalSignal,
  approvalSignalName,
  isApprovalSignal,
} from "../../durability/durable-signals.js";
import { errorToolResult } from "../../tool/tool-result.js";
import type { HookContext, Middleware } from "../middleware.js";
import { approvalArgumentsHash } from "./approval-binding.js";
import { ApprovalBook, type ApprovalRecord } from "./approval-book.js";
import { callable, middlewareName, optionError, stringList } from "./option-checks.js";
import { RegisteredNames, type ToolNames } from "./tool-filter.js";

/** An automatic decision: approve, reject (with a reason for the model), or ask a human. */
export type ApprovalDecision = "approve" | { reject: string } | undefined;

/** Options of {@link humanApprovalMiddleware}. */
export interface HumanApprovalOptions {
  /**
   * Which calls need approval: tool names, or a predicate. Default: calls to tools whose
   * `policy.requiresApproval` is true.
   */
  tools?: string[] | ((call: ToolCall) => boolean);
  /** Tool registry for checking `tools` names at construction (else checked at first use). */
  registry?: ToolNames;
  /** Where requests and decisions live (default: a new book, exposed as `approvals`). */
  approvals?: ApprovalBook;
  /** Decide without a human when a rule allows it; `undefined` asks a human. */
  decide?: (record: ApprovalRecord) => ApprovalDecision | Promise<ApprovalDecision>;
  /** Middleware name (default `"human_approval"`). */
  name?: string;
}

/** The approval middleware and its book. */
export interface HumanApprovalMiddleware<State, Ctx> extends Middleware<State, Ctx> {
  readonly approvals: ApprovalBook;
  /** Shorthand for `approvals.approve(id)`. */
  approve(id: string): void;
  /** Shorthand for `approvals.reject(id, reason)`. */
  reject(id: string, reason: string): void;
  /** Shorthand for `approvals.pending()`. */
  pending(): ApprovalRecord[];
}

/**
 * Human-in-the-loop approval of tool calls. The flow:
 * 1. `afterModel`: each call that needs approval and has no decision yet opens a pending
 *    {@link ApprovalRecord} (`approval.requested`) — unless `decide` settles it — and the run is
 *    interrupted before any tool of that turn runs (`stopReason: "interrupted"`, `run.paused`
 *    lists the calls as pending).
 * 2. A person calls `approve(id)` or `reject(id, reason)` (ids are `{runId}/{callId}`; list them
 *    with `pending()`).
 * 3. `harness.resume(state, data, run.paused)` continues the run: approved calls execute,
 *    rejected ones are answered with an error result carrying the reason, then the loop goes on.
 * Resuming while a request is still pending fails with `validation` naming it. Across processes,
 * persist `run.paused` and `approvals.toJSON()` together.
 *
 * In a run hosted by an engine (`RunOptions.durable`: Restate, DBOS), step 1 does not pause: the
 * run waits durably on `ctx.run.durable.awaitSignal(approvalSignalName(id))` for each pending
 * request, and a human answers by sending that signal an `ApprovalSignal` (`{ decision:
 * "approve" }` or `{ decision: "reject", reason }`) through the engine's client.
 * Throws `validation` at construction for bad `tools` (unregistered names: at construction with
 * `registry`, else at first use), `approvals` or `decide`.
 */
export function humanApprovalMiddleware<State = unknown, Ctx = unknown>(
  options: HumanApprovalOptions = {},
): HumanApprovalMiddleware<State, Ctx> {
  const name = middlewareName("human_approval", options.name);
  const book = options.approvals ?? new ApprovalBook();
  if (!(book instanceof ApprovalBook)) throw optionError(name, "approvals", "must be an ApprovalBook");
  const decide = options.decide === undefined ? undefined : callable(name, "decide", options.decide);
  const listed = Array.isArray(options.tools) ? new Set(stringList(name, "tools", options.tools)) : undefined;
  const known =
    listed === undefined ? undefined : new RegisteredNames(name, "tools", [...listed], options.registry);
  const tools = options.tools;
  const predicate = tools === undefined || Array.isArray(tools) ? undefined : callable(name, "tools", tools);
  const needsApproval = (ctx: HookContext<State, Ctx>, call: ToolCall): boolean =>
    listed !== undefined
      ? listed.has(call.name)
      : predicate !== undefined
        ? predicate(call)
        : ctx.tools?.get(call.name)?.policy?.requiresApproval === true;

  return {
    name,
    changes: "metadata",
    approvals: book,
    approve: (id) => book.approve(id),
    reject: (id, reason) => book.reject(id, reason),
    pending: () => book.pending(),
    async afterModel(ctx, response) {
      known?.ensure(ctx);
      const waiting: ApprovalRecord[] = [];
      for (const call of response.message.toolCalls) {
        if (!needsApproval(ctx, call)) continue;
        const record = book.open(ctx.run.runId, call, ctx.run.clock.now());
        if (record.status !== "pending") continue;
        const decision = await decide?.(structuredClone(record));
        if (decision === "approve") book.approve(record.id);
        else if (typeof decision === "object" && decision !== null) book.reject(record.id, decision.reject);
        else {
          waiting.push(record);
          const wait = approvalWait(record);
          // A journaled run publishes the approval to its engine first: a decision sent as soon
          // as the event is seen then finds it pending.
          if (ctx.run.journaled) await ctx.run.durable.openApproval?.(wait);
          ctx.run.emit({
            type: "approval.requested",
            approvalId: record.id,
            callId: call.id,
            toolName: call.name,
            argumentsHash: wait.argumentsHash,
          });
        }
      }
      if (waiting.length === 0) return;
      // On an engine that can wait (a journaled run), wait durably for each decision instead of
      // pausing: the wait survives the worker, and a re-driven run gets the recorded decision.
      if (ctx.run.journaled) {
        for (const record of waiting) await awaitDecision(ctx, book, record);
        return;
      }
      const list = waiting.map((r) => `${r.toolName} (${r.id})`).join(", ");
      ctx.run.requestControl({ kind: "interrupt", reason: `approval required: ${list}` });
    },
    async wrapToolCall(ctx, call, next) {
      known?.ensure(ctx);
      if (!needsApproval(ctx, call)) return next(call);
      const record = book.find(ctx.run.runId, call);
      if (record === undefined || record.status === "pending") {
        const id = record?.id ?? `${ctx.run.runId}/${call.id}`;
        throw new TinyAgentsError(
          "validation",
          `tool call "${call.name}" (${call.id}) needs approval "${id}", which has not been decided; call approve() or reject() before resuming the run`,
          { details: { middleware: name, approvalId: id, tool: call.name, callId: call.id } },
        );
      }
      book.spend(record);
      if (record.status === "approved") return next(call);
      const why = record.reason === undefined || record.reason === "" ? "" : `: ${record.reason}`;
      return errorToolResult(
        call.id,
        call.name,
        `Not executed: a human reviewer rejected this call${why}. Do not repeat it; choose another approach.`,
        0,
      );
    },
  };
}

/** What an approval wait is for: the call and the hash of its tool name and arguments. */
function approvalWait(record: ApprovalRecord): ApprovalWait {
  return {
    approvalId: record.id,
    callId: record.callId,
    toolName: record.toolName,
    argumentsHash: approvalArgumentsHash(record.toolName, record.arguments),
  };
}

/** Wait durably for the decision on `record` and apply it to the book (journaled runs). */
async function awaitDecision<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  book: ApprovalBook,
  record: ApprovalRecord,
): Promise<void> {
  // The engine keeps what is being approved beside the wait, to refuse a decision for anything else.
  const signal = await ctx.run.durable.awaitSignal<ApprovalSignal>(approvalSignalName(record.id), {
    approval: approvalWait(record),
  });
  if (isApprovalSignal(signal)) {
    if (signal.decision === "approve") book.approve(record.id);
    else book.reject(record.id, signal.reason);
    return;
  }
  // A malformed signal cannot be sent again (a signal completes its wait once): reject, saying why.
  book.reject(
    record.id,
    `the approval signal carried ${JSON.stringify(signal) ?? "nothing"}, not { decision: "approve" } or { decision: "reject", reason }`,
  );
}
