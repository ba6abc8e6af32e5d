import type { HarnessParts } from "../agent-loop/loop-session.js";
import type { StructuredSpec } from "../structured/structured-spec.js";
import type { ContextDefaults } from "./create-context.js";

/**
 * The key of an agent's {@link AgentSnapshot} method. A symbol, exported only from the internal
 * subpath: the run machinery (`run-engine.ts`, the internal lower layer) reads an agent through
 * it, while the agent's public surface stays the front door (`run`, `stream`, ...). Registered
 * (`Symbol.for`), so an agent from one copy of the package runs under another copy's machinery
 * (a sub-agent built with the sources, a parent from the build).
 */
export const agentSnapshot: unique symbol = Symbol.for("tinyagents.agentSnapshot");

/**
 * What one run reads from its agent, taken when the run starts: the loop gets these parts and
 * never calls back into the agent class. Later changes to the agent (a new tool, a policy)
 * apply to later runs.
 */
export interface AgentSnapshot<State, Ctx> {
  /** Models, tools, middleware, policy, memory... as the loop reads them. */
  parts: HarnessParts<State, Ctx>;
  /** The agent's own response format (the view `withResponseFormat` returns sets one). */
  structured: StructuredSpec<unknown> | undefined;
  /** What a run context is built from when the run's options leave it out. */
  defaults: ContextDefaults;
  /** Context data for a run given none (`defaultContext()`). */
  defaultData(): Ctx;
}

/** Anything the run machinery can run: an agent (an `AgentCore`, so every `AgentHarness`). */
export interface SnapshotSource<State, Ctx> {
  [agentSnapshot](): AgentSnapshot<State, Ctx>;
}
