import { type JsonValue, type Message, toTinyAgentsError } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import { type LiveRunContext, liveRunOf } from "../context/run-context.js";
import type { ChildRunSummary } from "../contracts/child-run-summary.js";
import type { RunContext } from "../contracts/run-context.js";
import type { HarnessRunStatus } from "../contracts/run-status.js";
import { cleanupWorkspace, prepareWorkspace } from "../workspace/workspace-isolation.js";
import type { AgentSnapshot } from "./agent-snapshot.js";
import { startRun } from "./run-engine.js";
import { type ChildRun, depthError } from "./run-parent.js";
import type { RunOverrides } from "./run-session.js";

/**
 * Run a child (the `parent` run option, or a `SubAgent`) in its built context `ctx`: the
 * `subagent.*` events on the parent's scope (a parent-less child's own), the extra cancel
 * signals linked while it runs, its workspace isolated if asked, and its totals rolled into the
 * parent (`recordChild`) however it ends. Resolves to the outcome (a failed child's error in
 * it); rejects when the child could not start. In a journaled parent the child is one
 * `durable.child` step (and a failed child rejects: the step failed).
 */
export function runChild<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  state: State,
  ctx: LiveRunContext<Ctx>,
  messages: Message[],
  child: ChildRun,
  release: () => void,
  overrides?: RunOverrides<State>,
): Promise<RunOutcome> {
  const execute = () => executeChild(agent, state, ctx, messages, child, overrides);
  const parent = child.parent;
  const outcome =
    parent?.journaled === true ? durableChild(parent, ctx, messages, child, execute) : execute();
  return outcome.finally(release);
}

async function executeChild<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  state: State,
  ctx: LiveRunContext<Ctx>,
  messages: Message[],
  child: ChildRun,
  overrides: RunOverrides<State> | undefined,
): Promise<RunOutcome> {
  const { name, parent } = child;
  // Events about the child go on the parent's scope; a parent-less child reports on its own.
  const host: RunContext<unknown> = parent ?? ctx;
  const depth = ctx.depth;
  if (parent !== undefined && liveRunOf(parent)?.streamsDeltas === true) ctx.streamsDeltas = true;
  if (depth > ctx.config.maxDepth) {
    const error = depthError(name, depth, ctx.config.maxDepth);
    host.emit({ type: "subagent.failed", name, depth, childRunId: ctx.runId, error: error.toJSON() });
    throw error;
  }
  const unlink = child.signals.map((signal) => linkAbort(signal, ctx));
  host.emit({ type: "subagent.started", name, depth, childRunId: ctx.runId });
  if (child.turn !== undefined && child.turn > 1)
    host.emit({ type: "subagent.reused", name, turn: child.turn });
  let outcome: RunOutcome;
  try {
    if (child.isolation !== undefined) await prepareWorkspace(child.isolation, ctx);
    outcome = await startRun(agent, state, ctx, messages, ctx.streamsDeltas, undefined, undefined, overrides);
  } catch (thrown) {
    const error = toTinyAgentsError(thrown);
    host.emit({ type: "subagent.failed", name, depth, childRunId: ctx.runId, error: error.toJSON() });
    throw error;
  } finally {
    for (const stop of unlink) stop();
    if (child.isolation !== undefined) await cleanupWorkspace(child.isolation, ctx);
  }
  const { run, status, error } = outcome;
  const summary: ChildRunSummary = {
    name,
    runId: run.runId,
    depth,
    status: status.status === "pending" || status.status === "running" ? "failed" : status.status,
    usage: run.usage,
    cost: run.cost,
  };
  parent?.recordChild(summary);
  if (error !== undefined) {
    host.emit({ type: "subagent.failed", name, depth, childRunId: run.runId, error: error.toJSON() });
  } else {
    host.emit({
      type: "subagent.completed",
      name,
      depth,
      childRunId: run.runId,
      usage: run.usage,
      cost: run.cost,
    });
  }
  return outcome;
}

/**
 * A child of a journaled parent, through `durable.child` (named `child:<runId>`, with the
 * child's name and input, so an engine may run it on another worker). Its value is the child's
 * `AgentRun` as JSON. When the engine answers from its journal (or ran the child elsewhere),
 * nothing ran here: the child's totals are rolled into the parent as `executeChild` would have,
 * and its status record is rebuilt from the recorded run (timestamps: now, the replay's).
 */
async function durableChild(
  parent: RunContext<unknown>,
  ctx: RunContext<unknown>,
  messages: Message[],
  child: ChildRun,
  execute: () => Promise<RunOutcome>,
): Promise<RunOutcome> {
  let live: RunOutcome | undefined;
  const recorded = await parent.durable.child(
    `child:${ctx.runId}`,
    async () => {
      live = await execute();
      // The step fails with the child: an engine records the failure, the caller sees the error.
      if (live.error !== undefined) throw live.error;
      return JSON.parse(JSON.stringify(live.run)) as JsonValue;
    },
    { runId: ctx.runId, agent: child.name, input: JSON.parse(JSON.stringify(messages)) as JsonValue },
  );
  if (live !== undefined) return live;
  const run = recorded as unknown as AgentRun;
  const status = run.stopReason === "interrupted" ? "interrupted" : "completed";
  parent.recordChild({
    name: child.name,
    runId: run.runId,
    depth: ctx.depth,
    status,
    usage: run.usage,
    cost: run.cost,
  });
  return { run, status: replayedStatus(run, ctx, status) };
}

/** The status record of a child the engine answered from its journal. */
function replayedStatus(
  run: AgentRun,
  ctx: RunContext<unknown>,
  status: "interrupted" | "completed",
): HarnessRunStatus {
  const now = ctx.durable.now();
  const record: HarnessRunStatus = {
    runId: run.runId,
    rootRunId: ctx.scope.rootRunId,
    component: "agent",
    status,
    phase: "done",
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
    activeToolCalls: [],
    usage: run.usage,
    cost: run.cost,
    startedAt: now,
    updatedAt: now,
    endedAt: now,
  };
  if (ctx.scope.parentRunId !== undefined) record.parentRunId = ctx.scope.parentRunId;
  if (ctx.threadId !== undefined) record.threadId = ctx.threadId;
  return record;
}

/** Cancel `ctx` when `signal` aborts; returns the unlink function (no listener outlives the run). */
function linkAbort(signal: AbortSignal, ctx: RunContext<unknown>): () => void {
  if (signal.aborted) {
    ctx.cancel(signal.reason);
    return noop;
  }
  const onAbort = () => ctx.cancel(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function noop(): void {}
