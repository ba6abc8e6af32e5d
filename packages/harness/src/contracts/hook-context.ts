import type { RunContext } from "./run-context.js";
import type { AnyTool } from "./tool.js";

/** What every hook receives: the caller's state and the live run context. */
export interface HookContext<State = unknown, Ctx = unknown> {
  state: State;
  run: RunContext<Ctx>;
  /** The model call id (`{runId}-model-{n}`) in `beforeModel`, `wrapModelCall` and `afterModel`. */
  callId?: string;
  /** The harness's registered tools (read-only use: look up a tool's `policy`, `idempotent`, ...). */
  tools?: ToolLookup<State, Ctx>;
}

/** A read-only view of the harness's tool registry, as middleware see it. */
export interface ToolLookup<State = unknown, Ctx = unknown> {
  get(name: string): AnyTool<State, Ctx> | undefined;
  has(name: string): boolean;
  /** Registered names, sorted. */
  names(): readonly string[];
}
