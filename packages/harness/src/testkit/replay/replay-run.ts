import {
  type ChatModel,
  type Clock,
  isJsonObject,
  type JsonObject,
  TinyAgentsError,
  validationError,
} from "@tinyagents/inference";
import type { Middleware } from "../../contracts/middleware.js";
import type { IdGenerator } from "../../ids/id-generator.js";
import type { HumanApprovalMiddleware } from "../../middleware/library/human-approval-middleware.js";
import { type RedactionOptions, Redactor } from "../../observability/redaction.js";
import type { AgentCore } from "../../runtime/agent-core.js";
import type { AgentHarness } from "../../runtime/agent-harness.js";
import type { AgentInput } from "../../runtime/agent-input.js";
import { AgentRunError, type RunResult } from "../../runtime/run-result.js";
import { SubAgentTool } from "../../runtime/sub-agent-tool.js";
import { SteeringHandle } from "../../steering/steering-handle.js";
import { DeterministicClock } from "../deterministic-clock.js";
import { DeterministicIds } from "../deterministic-ids.js";
import { type Cassette, parseCassette } from "./cassette.js";
import { divergenceError, type ReplayDivergence, ReplaySession } from "./replay-session.js";
import { blocksFromParts } from "./request-view.js";

export type { ReplayDivergence } from "./replay-session.js";

/** Options of {@link replayRun} (each tolerance adds to the cassette's own). */
export interface ReplayOptions {
  /** `"replay"` (default): tools answer with their recorded results; `"live"`: they execute. */
  tools?: "replay" | "live";
  /** Tool names executed live (added to the cassette's `tolerances.reexecute`). */
  reexecute?: readonly string[];
  /** Request paths not compared (added to `tolerances.ignore`). */
  ignore?: readonly string[];
  /** Regular expressions blanked in every string before comparing (added to `tolerances.mask`). */
  mask?: readonly (string | RegExp)[];
  /**
   * Report where the transcript first changes instead of failing (default: the cassette's
   * `tolerances.whatIf`). With `model`, the run calls that model instead of the recording.
   */
  whatIf?: boolean;
  /** What-if against another model: it answers live (registered name or a `ChatModel`). */
  model?: string | ChatModel;
  /** The run's clock (default: a `DeterministicClock` starting at the recording's time). */
  clock?: Clock;
  /** The run's ids (default: `DeterministicIds`). */
  ids?: IdGenerator;
  /**
   * The approval middleware whose decisions the recording made (default: every
   * `humanApprovalMiddleware` registered on the agent).
   */
  approvals?: readonly HumanApprovalMiddleware<unknown, unknown>[];
  /** Redaction the recording used beyond the defaults, so live values redact the same way. */
  redaction?: RedactionOptions;
  /** Context data for the run (`RunOptions.context`). */
  context?: unknown;
  /** Application state for the run (`RunOptions.state`). */
  state?: unknown;
}

/** What a replay did. */
export interface ReplayReport {
  /** The replayed run's result (the last leg, after any approval resumes). */
  result: RunResult;
  /** In what-if mode: where the transcript first changed (undefined: it did not). */
  divergence?: ReplayDivergence;
  /** Tool calls answered from the recording. */
  replayedTools: number;
  /** Tool calls executed live (sub-agent runs not counted). */
  liveTools: number;
}

type AnyHarness = AgentCore<unknown, unknown>;

/** The active session of each harness of a replayed tree (middleware installed once per harness). */
const active = new WeakMap<object, { session: ReplaySession | undefined }>();

function replayMiddleware(slot: { session: ReplaySession | undefined }): Middleware<unknown, unknown> {
  return {
    name: "replay",
    wrapModelCall(ctx, request, next) {
      const session = slot.session;
      if (session === undefined) return next(request);
      return session.modelCall(ctx.run.runId, request, () => next(request));
    },
    wrapToolCall(ctx, call, next) {
      const session = slot.session;
      if (session === undefined) return next(call);
      const runsChild =
        (ctx.tools?.get(call.name) as { runsChild?: boolean } | undefined)?.runsChild === true;
      return session.toolCall(ctx.run.runId, call, runsChild, () => next(call));
    },
  };
}

/** `harness` and every sub-agent harness below it (through `SubAgentTool`s / `asTool`). */
function harnessTree(harness: AnyHarness, seen = new Set<AnyHarness>()): AnyHarness[] {
  if (seen.has(harness)) return [];
  seen.add(harness);
  const out = [harness];
  for (const tool of harness.tools.list()) {
    if (tool instanceof SubAgentTool) out.push(...harnessTree(tool.agent.harness as AnyHarness, seen));
  }
  return out;
}

/** The harness's registered middleware (read-only; the list is internal to the harness). */
function middlewareOf(harness: AnyHarness): readonly Middleware<unknown, unknown>[] {
  return (harness as unknown as { middlewareList: Middleware<unknown, unknown>[] }).middlewareList;
}

function isApprovalMiddleware(
  m: Middleware<unknown, unknown>,
): m is HumanApprovalMiddleware<unknown, unknown> {
  const candidate = m as Partial<HumanApprovalMiddleware<unknown, unknown>>;
  return typeof candidate.pending === "function" && typeof candidate.approve === "function";
}

function compileMasks(masks: readonly (string | RegExp)[]): RegExp[] {
  return masks.map((m) => {
    try {
      return typeof m === "string"
        ? new RegExp(m, "g")
        : new RegExp(m.source, m.flags.includes("g") ? m.flags : `${m.flags}g`);
    } catch (error) {
      throw validationError(
        `replay mask ${JSON.stringify(String(m))} is not a regular expression: ${(error as Error).message}`,
        {
          field: "mask",
        },
      );
    }
  });
}

/** Send one recorded steering command (journaled as `steering.applied`, content from the cassette). */
function sendRecorded(handle: SteeringHandle, entry: JsonObject): void {
  switch (entry.command) {
    case "redirect":
      if (typeof entry.instruction === "string") handle.redirect(entry.instruction);
      break;
    case "injectMessage": {
      const message = entry.message;
      if (!isJsonObject(message)) break;
      const parts = Array.isArray(message.parts) ? (message.parts as JsonObject[]) : [];
      handle.injectMessage({ role: "user", content: blocksFromParts(parts) });
      break;
    }
    case "pause":
      handle.pause();
      break;
    case "cancel":
      handle.cancel();
      break;
    default:
      // `resume` cancels a pause of the same batch; `setMetadata` changes nothing a request carries.
      break;
  }
}

/** The run's input as the agent takes it. */
function agentInput(cassette: Cassette): AgentInput {
  if (typeof cassette.input === "string") return cassette.input;
  return cassette.input.map((m) => ({
    role: "user" as const,
    content: blocksFromParts(Array.isArray(m.parts) ? (m.parts as JsonObject[]) : []),
  }));
}

/**
 * Replay a recorded run (a cassette from `exportRunAsTest` / `tinyagents test export`) against
 * `agent`, offline and deterministic: every model call is answered from the recording, tools
 * answer with their recorded results (unless `tools: "live"` or listed in `reexecute`), sub-agents
 * run for real with their own recorded sections, recorded approval decisions are applied, and
 * time and ids are virtual. Each request the agent makes is compared with the recorded one: at
 * the FIRST difference the replay fails with a field-level message naming the step —
 * "replay diverged at model call 1: system prompt changed (line 1): …". In what-if mode it
 * reports the divergence instead (`report.divergence`).
 *
 * The agent is the user's own (rebuild it as production builds it). Replay registers a
 * `replay` middleware on it and on its sub-agents' harnesses, innermost; it is inert outside a
 * replay. One replay at a time per agent. Throws `validation` (details `reason:
 * "replay_diverged"`) on divergence; a run failure the recording did not have rethrows.
 */
export async function replayRun<State, Ctx>(
  agent: AgentCore<State, Ctx>,
  cassetteInput: Cassette | string,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  const cassette = parseCassette(cassetteInput);
  const t = cassette.tolerances;
  const whatIf = options.whatIf ?? t.whatIf;
  // The recorded run was steered: the same commands go to the replayed run at the same points.
  const steering = (cassette.run.steering ?? []).some((e) => e.accepted === true)
    ? SteeringHandle.allowAll()
    : undefined;
  const session = new ReplaySession(cassette.run, {
    rootRunId: cassette.runId,
    tools: options.tools ?? "replay",
    reexecute: new Set([...t.reexecute, ...(options.reexecute ?? [])]),
    whatIf,
    liveModel: options.model !== undefined,
    diff: {
      ignore: [...t.ignore, ...(options.ignore ?? [])],
      mask: compileMasks([...t.mask, ...(options.mask ?? [])]),
    },
    redactor: new Redactor(options.redaction ?? {}),
    ...(steering === undefined ? {} : { steer: (entry: JsonObject) => sendRecorded(steering, entry) }),
  });
  const tree = harnessTree(agent as AnyHarness);
  const slots = tree.map((h) => {
    let slot = active.get(h);
    if (slot === undefined) {
      slot = { session: undefined };
      active.set(h, slot);
      h.use(replayMiddleware(slot));
    }
    if (slot.session !== undefined) {
      throw new TinyAgentsError(
        "conflict",
        "replayRun: this agent is already replaying; replay one cassette at a time per agent",
        {
          details: { reason: "replay_busy" },
        },
      );
    }
    return slot;
  });
  const approvals = options.approvals ?? tree.flatMap((h) => middlewareOf(h).filter(isApprovalMiddleware));
  const runOptions = {
    runId: cassette.runId,
    clock: options.clock ?? new DeterministicClock({ start: cassette.recordedAt }),
    ids: options.ids ?? new DeterministicIds(),
    onEvent: session.onEvent,
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.context === undefined ? {} : { context: options.context }),
    ...(options.state === undefined ? {} : { state: options.state }),
    ...(steering === undefined ? {} : { steering }),
  };
  for (const slot of slots) slot.session = session;
  let result: RunResult;
  try {
    const run = agent as AgentHarness<unknown, unknown, unknown>;
    // `never`: the options are the agent's own RunOptions<State, Ctx>, built untyped here.
    result = await run.run(agentInput(cassette), runOptions as never);
    let callsBefore = -1;
    // A run paused for approval: apply the recorded decisions and resume, as the person did.
    while (result.stopReason === "interrupted" && result.paused !== undefined) {
      let decided = 0;
      for (const approval of approvals) {
        for (const record of approval.pending()) {
          const decision = session.approval(record.runId, record.callId);
          if (decision === undefined) continue;
          if (decision.decision === "approve") approval.approve(record.id);
          else approval.reject(record.id, decision.reason ?? "");
          decided++;
        }
      }
      // Paused by a recorded `pause` (or decided approvals): the recording went on, so does
      // replay — unless the last leg made no progress (it would pause the same way forever).
      if (decided === 0 && (!session.rootUnfinished() || session.rootModelCalls() === callsBefore)) break;
      callsBefore = session.rootModelCalls();
      const { runId: _runId, ...resumeOptions } = runOptions;
      result = await run.run(result.paused, resumeOptions as never);
    }
  } catch (error) {
    if (session.failure !== undefined) throw session.failure;
    // The recording failed too, or a what-if run stopped where it could not go on offline: the
    // partial run is the result.
    const expected = cassette.run.outcome === "failed" || (whatIf && session.divergence !== undefined);
    if (AgentRunError.isAgentRunError(error) && expected) result = error.run;
    else throw error;
  } finally {
    for (const slot of slots) slot.session = undefined;
  }
  if (session.failure !== undefined) throw session.failure;
  if (!whatIf) {
    const unfinished = session.unfinished();
    if (unfinished !== undefined) {
      throw divergenceError({ step: "the end of the run", lines: [unfinished], differences: [] });
    }
  }
  const report: ReplayReport = { result, replayedTools: session.replayedTools, liveTools: session.liveTools };
  if (session.divergence !== undefined) report.divergence = session.divergence;
  return report;
}
