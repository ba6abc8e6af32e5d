import {
  type AssistantMessage,
  type FinishReason,
  type JsonValue,
  type Message,
  TinyAgentsError,
  type ToolCall,
  toTinyAgentsError,
} from "@tinyagents/inference";
import type { AgentEvent } from "../contracts/agent-event.js";
import { type PausedRun, validatePausedRun } from "../durability/paused-run.js";
import { loadHistory } from "../memory/short-term-memory.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { AgentRun, StopReason } from "./agent-run.js";
import { applySteering, releaseHeldMessages } from "./apply-steering.js";
import { buildRequest } from "./build-request.js";
import { checkDeadline, checkpoint } from "./checkpoint.js";
import { holdRun } from "./deadline.js";
import { awaitDurableResume } from "./durable-pause.js";
import { startLiveness } from "./heartbeats.js";
import type { LoopSession } from "./loop-session.js";
import { runModelPhase } from "./model-phase.js";
import { controlAfterModel } from "./model-turn-control.js";
import { capturePausedRun, restoreSession } from "./paused-run.js";
import { resumePendingTools } from "./resume-run.js";
import {
  finishRunRecord,
  markCompleting,
  pauseCheckpoint,
  saveCheckpoint,
  takeRunRecord,
} from "./run-checkpoints.js";
import { shapeAnchors } from "./shape-anchors.js";
import { finishStructured, takeStructuredAnswer } from "./structured-output.js";
import { runToolPhase } from "./tool-phase.js";

type RunStartedEvent = Extract<AgentEvent, { type: "run.started" }>;

/** The outcome of a run: never loses the partial transcript, even on failure. */
export interface RunOutcome {
  run: AgentRun;
  status: HarnessRunStatus;
  error?: TinyAgentsError;
}

/**
 * THE agent loop (model -> tool -> model). Every entry point, unary or streaming, runs this
 * function; streaming differs only in how model calls are made and events consumed.
 * It never throws: failures come back in `outcome.error` with the partial run.
 *
 * `resumed` continues a paused run whose state was restored into `s`: memory, input and
 * `beforeAgent` are skipped (they belong to the run's start), pending tool calls run first.
 * An interrupted run ends with `run.paused` set, ready for `harness.resume`; a journaled one waits
 * for its resume signal instead (see `awaitDurableResume`).
 */
export async function executeRun<State, Ctx>(
  s: LoopSession<State, Ctx>,
  input: Message[],
  resumed?: PausedRun,
): Promise<RunOutcome> {
  const { ctx, parts, run } = s;
  // Keeps the run's objects' hidden classes alive once the burst it belongs to ends (see shape-anchors).
  shapeAnchors.session = s;
  // A checkpointed run takes its durable record first (owner, epoch, lease; a new run's input):
  // a refused take ends the run here, before it emits or executes anything.
  if (ctx.durability?.checkpoints !== undefined) {
    const refused = await takeRunRecord(s, input, resumed);
    if (refused !== undefined) return { run, status: s.status.snapshot(), error: refused };
    // A durable sub-agent's child run taken again (its parent was recovered): it continues from
    // its own checkpoint instead of starting over.
    const continued = resumed === undefined ? continuedChild(s) : undefined;
    if (continued !== undefined) {
      restoreSession(s, continued);
      return executeRun(s, [], continued);
    }
    // Its previous owner died after journaling `run.completed`, before recording the outcome:
    // record it, emitting nothing (the journal and the status already say completed).
    if (resumed !== undefined && completedInJournal(s) && restoreFinal(s)) {
      await finishRunRecord(s, undefined);
      s.status.finish("completed");
      return { run, status: s.status.snapshot() };
    }
  }
  // The deadline timer and the caller's abort link live exactly as long as the run.
  const letGo = holdRun(ctx);
  let stopLiveness: (() => void) | undefined;
  let recordFinished = false;
  let failure: TinyAgentsError | undefined;
  try {
    s.status.start();
    const started: RunStartedEvent = { type: "run.started", input: input.length };
    if (ctx.threadId !== undefined) started.threadId = ctx.threadId;
    if (ctx.config.tags.length > 0) started.tags = ctx.config.tags.slice();
    ctx.emit(started);
    // Liveness (opt-in): a first heartbeat, then the shared timer while the run is quiet.
    if (ctx.durability !== undefined) stopLiveness = startLiveness(ctx, ctx.durability);
    if (resumed === undefined) {
      // The run yields once here, memory or not: code that starts a run and cancels it (or
      // subscribes) in the same tick still does so before any model is called. Without memory
      // or `beforeAgent` middleware no async frame is entered (each is a promise and a hop).
      if (parts.memory !== undefined && ctx.threadId !== undefined) await loadMemory(s);
      else await undefined;
      run.inputStart = s.transcript.length;
      for (const message of input) s.transcript.push(message);
      s.status.phase("middleware");
      if (parts.middleware.list.length > 0) await parts.middleware.beforeAgent(s.hook);
      // Safe boundary: the input (and loaded history) is durable before the first model call.
      if (ctx.durability?.lease !== undefined) await saveCheckpoint(s);
    }
    // A resumed run whose pending tools hit the tool-call cap stops before its first turn.
    let stoppedEarly = resumed !== undefined && (await resumePendingTools(s, resumed));
    // A recovered run whose final model response was checkpointed completes without a model call.
    let recoveredFinal = false;
    if (resumed !== undefined && ctx.durability?.lease?.taken.final === true && restoreFinal(s)) {
      recoveredFinal = (await finishAnswer(s)) === "done";
      stoppedEarly ||= recoveredFinal;
    }
    if (resumed !== undefined && ctx.durability?.lease !== undefined) await saveCheckpoint(s, recoveredFinal);

    let step = run.steps.length;
    // The outer loop turns only when a journaled run paused and its resume signal came.
    for (;;) {
      while (!stoppedEarly) {
        const gate = checkpoint(s);
        if (gate !== "continue") break;
        const callId = `${ctx.runId}-model-${step + 1}`;
        const hit = ctx.limits.admitModelCall(callId);
        if (hit !== undefined) {
          ctx.emit({ type: "limit.reached", limit: hit.limit, value: hit.value, count: hit.count });
          if (parts.policy.limits.onCap !== "stopWithPartial") throw hit.error;
          run.stopReason = "limit:model_calls";
          break;
        }
        s.status.phase("building_request");
        const response = await runModelPhase(s, callId, buildRequest(s));
        if (response === undefined) {
          // A beforeModel hook requested control: no model call this turn, apply the request now.
          if (checkpoint(s) !== "continue") break;
          continue;
        }
        run.finalResponse = response;
        if (response.resolvedModel !== undefined) run.resolvedModel = response.resolvedModel;
        const calls = uniqueToolCallIds(s, response.message.toolCalls, callId);
        s.transcript.push(response.message);
        const model = response.resolvedModel?.name ?? "";
        // Exactly sized (the record lives as long as the run), no closure per step.
        const toolCallIds = calls.map(idOfCall);
        const { finishReason } = response;
        // Two literals rather than an added key: the record keeps its fields in-object.
        run.steps.push(
          finishReason === undefined
            ? { index: step, callId, model, toolCallIds }
            : { index: step, callId, model, toolCallIds, finishReason },
        );
        // Per-step events are built only when someone listens (their offsets are taken either way).
        if (ctx.observed) ctx.emit({ type: "state.updated", step, messages: s.transcript.length });
        else ctx.skipEvent();
        checkDeadline(s);
        step++;
        if (controlAfterModel(s, calls)) break;

        if (calls.length === 0) {
          // A structured answer that did not validate may ask the model again (bounded re-ask).
          if ((await finishAnswer(s)) === "reask") continue;
          // Safe boundary: the final response is recorded (recovery then calls no model again).
          if (ctx.durability?.lease !== undefined) await saveCheckpoint(s, true);
          break;
        }
        // Safe boundary: the model response is recorded (a no-op without a checkpoint store).
        if (ctx.durability?.lease !== undefined) await saveCheckpoint(s);
        // Steering checkpoint between the model turn and its tool batch (free without a handle).
        if (ctx.steering !== undefined && applySteering(s, ctx.steering) === "interrupted") break;
        const phase = runToolPhase(s, calls);
        const tools = phase instanceof Promise ? await phase : phase;
        for (const message of tools.messages) s.transcript.push(message);
        releaseHeldMessages(s);
        if (ctx.observed) ctx.emit({ type: "state.updated", step: step - 1, messages: s.transcript.length });
        else ctx.skipEvent();
        // Safe boundary: the tool batch's results are recorded.
        if (ctx.durability?.lease !== undefined) await saveCheckpoint(s);
        // The final-answer tool (structured output, tool strategy) accepted an answer: done.
        if (takeStructuredAnswer(s)) break;
        if (tools.capReached) {
          run.stopReason = "limit:tool_calls";
          break;
        }
      }
      if (run.stopReason !== "interrupted") break;
      const reason = s.pauseReason ?? "interrupted by a control request";
      const paused = capturePausedRun(s, reason);
      run.paused = paused;
      ctx.emit({ type: "run.interrupted", reason });
      paused.eventOffset = ctx.events.offset;
      // A checkpointed run's paused record replaces its checkpoint in one write (no gap).
      if (!ctx.journaled && ctx.durability?.lease !== undefined) await pauseCheckpoint(s, paused);
      // In process the run ends paused (`harness.resume` continues it); a journaled run waits
      // durably for its resume signal and goes on in this same loop.
      if (!ctx.journaled || !(await awaitDurableResume(s, paused))) break;
      delete run.paused;
      stoppedEarly = await resumePendingTools(s, paused);
    }

    if (run.stopReason === "interrupted") {
      s.status.finish("interrupted");
      return { run, status: s.status.snapshot() };
    }
    s.status.phase("middleware");
    const afterAgent = parts.middleware.runValueHook(s.hook, "afterAgent", run);
    const finished = afterAgent instanceof Promise ? await afterAgent : afterAgent;
    // A recovered run whose previous owner died while completing saved its memory already.
    const completing = ctx.durability?.lease?.taken.completingAt;
    if (completing === undefined && parts.memory !== undefined && ctx.threadId !== undefined)
      await saveMemory(s, finished);
    // Completion of a durable run: mark where `run.completed` goes, emit it, make the events
    // durable, then record the outcome (and drop the checkpoint). A crash anywhere in between is
    // recovered without a second `run.completed` (see `completingAt`).
    if (ctx.durability?.lease !== undefined && completing === undefined) await markCompleting(s);
    ctx.emit({
      type: "run.completed",
      modelCalls: finished.modelCalls,
      toolCalls: finished.toolCalls,
      usage: finished.usage,
      cost: finished.cost,
    });
    if (ctx.durability?.lease !== undefined) {
      await ctx.durability.flush?.();
      await finishRunRecord(s, undefined);
      recordFinished = true;
    }
    s.status.finish("completed");
    return { run: finished, status: s.status.snapshot() };
  } catch (thrown) {
    const error = toTinyAgentsError(thrown);
    failure = error;
    return { run, status: await failRun(s, error), error };
  } finally {
    stopLiveness?.();
    letGo();
    // The run failed here: its record says so (its checkpoint dropped, its intents kept). A
    // write refused because another process owns the run now is expected: that owner goes on.
    if (!recordFinished && ctx.durability?.lease !== undefined)
      await finishRunRecord(s, failure).catch(() => undefined);
  }
}

/**
 * End a run that failed: anything of it still in flight (a parallel tool, an abandoned attempt)
 * is told to stop and gets its terminal event, then `onError` hooks, then `run.failed` — the
 * run's last event. Shared with the direct model call.
 */
export async function failRun<State, Ctx>(
  s: LoopSession<State, Ctx>,
  error: TinyAgentsError,
): Promise<HarnessRunStatus> {
  const { ctx } = s;
  if (!ctx.aborted) ctx.cancel(error);
  s.open.closeAll(ctx, error, (callId) => s.status.toolEnded(callId));
  s.run.stopReason = stopReasonOf(error);
  await s.parts.middleware.onError(s.hook, error);
  ctx.emit({ type: "run.failed", error: error.toJSON() });
  s.status.finish(error.code === "cancelled" ? "cancelled" : "failed", error.toJSON());
  return s.status.snapshot();
}

/** The stop reason of a run that failed with `error`. */
export function stopReasonOf(error: TinyAgentsError): StopReason {
  if (error.code === "cancelled") return "cancelled";
  if (error.code === "timeout") return "timeout";
  if (error.code === "abandoned") return "abandoned";
  if (error.code === "limit_exceeded") {
    const limit = error.details?.limit;
    if (limit === "model_calls" || limit === "tool_calls" || limit === "retries") return `limit:${limit}`;
  }
  return "failed";
}

/**
 * Whether a recovered run's `run.completed` is in its journal already: its previous owner marked
 * the offset (`completingAt`) and this run's sink continues the journal past it.
 */
function completedInJournal<State, Ctx>(s: LoopSession<State, Ctx>): boolean {
  const at = s.ctx.durability?.lease?.taken.completingAt;
  return at !== undefined && s.ctx.events.offset > at;
}

/** The checkpoint a child run taken again continues from (none for a fresh take). */
function continuedChild<State, Ctx>(s: LoopSession<State, Ctx>): PausedRun | undefined {
  const taken = s.ctx.durability?.lease?.taken;
  if (taken === undefined || taken.epoch < 2 || taken.parentRunId === undefined) return undefined;
  return taken.checkpoint === undefined ? undefined : validatePausedRun(taken.checkpoint);
}

/**
 * Put back the final model response of a recovered run from its checkpoint (the last assistant
 * message and its step's finish reason). False when the transcript does not end with one.
 */
function restoreFinal<State, Ctx>(s: LoopSession<State, Ctx>): boolean {
  const last = s.transcript[s.transcript.length - 1];
  if (last === undefined || last.role !== "assistant") return false;
  const step = s.run.steps[s.run.steps.length - 1];
  s.run.finalResponse =
    step?.finishReason === undefined
      ? { message: last as AssistantMessage }
      : { message: last as AssistantMessage, finishReason: step.finishReason as FinishReason };
  return true;
}

async function finishAnswer<State, Ctx>(s: LoopSession<State, Ctx>): Promise<"done" | "reask"> {
  const response = s.run.finalResponse;
  if (response === undefined) return "done";
  const blank = response.message.content.every((b) => b.type !== "text" || b.text.trim() === "");
  if (blank && s.parts.policy.errorOnEmptyResponse) {
    throw new TinyAgentsError("empty_response", "the model returned an empty final answer", {
      details: { finishReason: response.finishReason ?? "unknown" },
    });
  }
  return finishStructured(s, response);
}

function idOfCall(call: ToolCall): string {
  return call.id;
}

/** Tool call ids must be unique within a run; re-key duplicates (some providers reuse `call_0`). */
function uniqueToolCallIds<State, Ctx>(
  s: LoopSession<State, Ctx>,
  calls: ToolCall[],
  callId: string,
): ToolCall[] {
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as ToolCall;
    // The new id may itself be taken (a model that names its calls like the loop does): add a
    // suffix until it is free.
    for (let n = 0; isToolCallIdUsed(s, calls, i); n++) {
      calls[i] = { ...call, id: n === 0 ? `${callId}-tool-${i}` : `${callId}-tool-${i}-${n}` };
    }
    s.usedToolCallIds?.add((calls[i] as ToolCall).id);
  }
  return calls;
}

/** Past this many tool calls in its steps, a run indexes their ids in a set (see `usedToolCallIds`). */
const SCANNED_TOOL_CALL_IDS = 16;

/**
 * Whether `calls[i]`'s id is taken: by a call of an earlier step of the run (its `toolCallIds`)
 * or an earlier call of this response. Scanned while the run has few calls; past
 * {@link SCANNED_TOOL_CALL_IDS} the ids go to a set, built once.
 */
function isToolCallIdUsed<State, Ctx>(s: LoopSession<State, Ctx>, calls: ToolCall[], i: number): boolean {
  const id = (calls[i] as ToolCall).id;
  for (let j = 0; j < i; j++) if ((calls[j] as ToolCall).id === id) return true;
  if (s.usedToolCallIds !== undefined) return s.usedToolCallIds.has(id);
  const steps = s.run.steps;
  let seen = 0;
  for (const step of steps) {
    for (const used of step.toolCallIds) if (used === id) return true;
    seen += step.toolCallIds.length;
  }
  if (seen + calls.length > SCANNED_TOOL_CALL_IDS) {
    // From here on a set: the steps' ids (none of them is `id`) and this response's so far.
    const used = new Set<string>();
    for (const step of steps) for (const stepId of step.toolCallIds) used.add(stepId);
    for (let j = 0; j < i; j++) used.add((calls[j] as ToolCall).id);
    s.usedToolCallIds = used;
  }
  return false;
}

async function loadMemory<State, Ctx>(s: LoopSession<State, Ctx>): Promise<void> {
  const memory = s.parts.memory;
  const threadId = s.ctx.threadId;
  if (memory === undefined || threadId === undefined) return;
  let history: Message[];
  try {
    // A journaled run loads once: a re-driven run sees the history its first execution saw.
    history = s.ctx.journaled
      ? ((await s.ctx.durable.step(
          "memory:load",
          async () => JSON.parse(JSON.stringify(await loadHistory(memory, threadId))) as JsonValue,
          { kind: "memory" },
        )) as unknown as Message[])
      : await loadHistory(memory, threadId);
  } catch (error) {
    throw new TinyAgentsError("storage", `loading thread "${threadId}" failed; the run did not start`, {
      cause: error,
      details: { threadId },
    });
  }
  for (const message of history) s.transcript.push(message);
  s.ctx.emit({ type: "memory.loaded", threadId, messages: history.length });
}

async function saveMemory<State, Ctx>(s: LoopSession<State, Ctx>, run: AgentRun): Promise<void> {
  const memory = s.parts.memory;
  const threadId = s.ctx.threadId;
  if (memory === undefined || threadId === undefined) return;
  s.status.phase("persisting");
  const added = run.messages.slice(run.inputStart);
  try {
    // A journaled run appends once, even when its worker dies after the append.
    if (s.ctx.journaled) {
      await s.ctx.durable.step(
        "memory:save",
        async () => {
          await memory.history.append(threadId, added);
          return added.length;
        },
        { kind: "memory" },
      );
    } else await memory.history.append(threadId, added);
  } catch (error) {
    throw new TinyAgentsError(
      "storage",
      `saving thread "${threadId}" failed; existing history is untouched`,
      {
        cause: error,
        details: { threadId },
      },
    );
  }
  s.ctx.emit({ type: "memory.saved", threadId, messages: added.length });
}
