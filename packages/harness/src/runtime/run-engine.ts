import {
  type Message,
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
  validateModelRequest,
} from "@tinyagents/inference";
import { restoreSession } from "../agent-loop/paused-run.js";
import { executeRun, type RunOutcome } from "../agent-loop/run-loop.js";
import type { RunConfig } from "../config/run-config.js";
import { noop } from "../context/abort-hub.js";
import type { LiveRunContext } from "../context/run-context.js";
import type { DurableContext } from "../contracts/durable-context.js";
import { type PausedRun, validatePausedRun } from "../durability/paused-run.js";
import { takeForRecovery } from "../durability/recover-run.js";
import type { RunDurability } from "../durability/run-durability.js";
import { type RecordsWatch, watchRecords } from "../events/record-keepers.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { RunWithStatus } from "./agent-core.js";
import type { AgentSnapshot } from "./agent-snapshot.js";
import { callModelOnce } from "./call-model.js";
import { type ContextSources, createRunContext } from "./create-context.js";
import { openSession, type RunOverrides, runParts } from "./run-session.js";
import { type AgentStreamItem, streamItems } from "./stream-items.js";

/**
 * The run machinery every entry point shares (the front door and the internal lower layer): from
 * an agent's snapshot and a built RunContext to the loop, and back with the outcome. Functions of
 * the snapshot, never of the agent class, so nothing here calls back up into the agent.
 */

/**
 * Run the loop in `ctx`. `release` runs when the run ends, whatever happens. Throws (rejects)
 * `sub_agent_depth` when the context is deeper than its `maxDepth`; never rejects for a run
 * failure: the error comes back in the outcome.
 */
export function startRun<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  state: State,
  ctx: LiveRunContext<Ctx>,
  input: Message[],
  streaming: boolean,
  resumed?: PausedRun,
  release: () => void = noop,
  overrides?: RunOverrides<State>,
): Promise<RunOutcome> {
  let outcome: Promise<RunOutcome>;
  // A top-level run whose event sink has a journal / status store attached waits for them and
  // says in its result what they could not store (sub-agents share the sink: the root reports).
  const records = ctx.depth === 0 ? watchRecords(ctx.events) : undefined;
  try {
    if (ctx.depth > ctx.config.maxDepth) throw depthExceeded(ctx);
    const parts = runParts(agent.parts, agent.structured, overrides);
    const s = openSession(parts, agent.parts.tools, state, ctx, streaming, "agent");
    if (resumed !== undefined) restoreSession(s, resumed);
    outcome = executeRun(s, input, resumed);
  } catch (error) {
    release();
    return Promise.reject(error);
  }
  if (records !== undefined) outcome = outcome.then((settled) => withRecordsLost(settled, records));
  // No extra promise when there is nothing to release (no caller signal): the common case.
  return release === noop ? outcome : outcome.finally(release);
}

/** The outcome, with `run.recordsLost` when the run's journal or status store lost records. */
async function withRecordsLost(outcome: RunOutcome, records: RecordsWatch): Promise<RunOutcome> {
  const lost = await records.lost();
  if (lost !== undefined) outcome.run.recordsLost = lost;
  return outcome;
}

/** `startRun`, streaming: every event as it happens, then one `completed` or `failed` item. */
export function streamRun<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  state: State,
  ctx: LiveRunContext<Ctx>,
  input: Message[],
  release: () => void,
  resumed?: PausedRun,
  overrides?: RunOverrides<State>,
): AsyncIterator<AgentStreamItem> {
  return streamItems(
    ctx,
    () => startRun(agent, state, ctx, input, true, resumed, noop, overrides),
    (error) => notStarted(agent, state, ctx, error),
    release,
  );
}

/** The run and failed status of a run that could not start (for a stream's `failed` item). */
export function notStarted<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  state: State,
  ctx: LiveRunContext<Ctx>,
  error: TinyAgentsError,
): RunWithStatus {
  const s = openSession(agent.parts, agent.parts.tools, state, ctx, true, "agent");
  s.status.finish("failed", error.toJSON());
  return { run: s.run, status: s.status.snapshot() };
}

/**
 * Take run `runId` for recovery (see `takeForRecovery`) and build its context: from its
 * checkpoint (a resumed run) or, when it died before its first checkpoint, from its recorded
 * input. `config` applies over the recorded config (front-door options).
 */
export async function takeForRecover<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  runId: string,
  data: Ctx,
  sources: ContextSources,
  durability: RunDurability | undefined,
  engine?: DurableContext,
  config: Partial<RunConfig> = {},
): Promise<{ ctx: LiveRunContext<Ctx>; input: Message[]; paused: PausedRun | undefined }> {
  const clock = sources.clock ?? agent.defaults.clock;
  const lease = await takeForRecovery(runId, durability, clock.now());
  const taken = lease.taken;
  let ctx: LiveRunContext<Ctx>;
  let paused: PausedRun | undefined;
  try {
    paused = taken.checkpoint === undefined ? undefined : validatePausedRun(taken.checkpoint);
    const recorded = paused?.config ?? (taken.start?.config as Partial<RunConfig>);
    ctx = createRunContext(
      agent.defaults,
      { ...recorded, ...config, runId },
      data,
      sources,
      durability,
      engine,
    );
  } catch (error) {
    // A setup error (bad options) before the run started: give the run back at once.
    await lease.release(clock.now()).catch(() => undefined);
    throw error;
  }
  if (ctx.durability !== undefined) ctx.durability.lease = lease;
  const input = (paused === undefined ? (taken.start?.input ?? []) : []) as Message[];
  return { ctx, input, paused };
}

/**
 * One model call in `ctx` through the loop's machinery (model resolution, middleware,
 * retry/fallback, usage and cost, events, its own status record, component `model_call`).
 */
export function callModelInContext<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  state: State,
  ctx: LiveRunContext<Ctx>,
  request: ModelRequest,
  overrides?: RunOverrides<State>,
): Promise<{ response: ModelResponse; status: HarnessRunStatus }> {
  try {
    validateModelRequest(request);
  } catch (error) {
    return Promise.reject(error);
  }
  // The run's model choice applies; a response format does not (the request carries its own).
  const parts = overrides === undefined ? agent.parts : { ...agent.parts };
  if (overrides?.models !== undefined) parts.models = overrides.models;
  if (overrides?.model !== undefined) parts.agentDefaultModel = overrides.model;
  return callModelOnce(openSession(parts, agent.parts.tools, state, ctx, false, "model_call"), request);
}

function depthExceeded(ctx: LiveRunContext<unknown>): TinyAgentsError {
  return new TinyAgentsError(
    "sub_agent_depth",
    `run depth ${ctx.depth} exceeds the maximum depth ${ctx.config.maxDepth} (RunConfig.maxDepth); ` +
      "raise maxDepth or flatten the agent tree",
    { details: { depth: ctx.depth, maxDepth: ctx.config.maxDepth } },
  );
}
