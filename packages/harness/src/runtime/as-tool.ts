import type { JsonObject } from "@tinyagents/inference";
import type { SteeringHandle } from "../steering/steering-handle.js";
import type { ToolExecutionContext, ToolTimeout } from "../tool/tool.js";
import type { WorkspaceIsolation } from "../workspace/workspace-isolation.js";
import type { AgentCore } from "./agent-core.js";
import type { AgentInput } from "./agent-input.js";
import { SubAgent } from "./sub-agent.js";
import { SubAgentTool } from "./sub-agent-tool.js";

/** Options of `agent.asTool(...)`: the tool the parent model sees, and how the child runs. */
export interface AsToolOptions<State, ParentCtx, Ctx> {
  /** Tool name (ASCII snake_case); also names the child runs (`{name}-d{depth}-{n}`). */
  name: string;
  /** What the agent does, for the parent model. */
  description: string;
  /** JSON Schema of the arguments (an object schema). Default: `{ input: string }`. */
  parameters?: JsonObject;
  /** Turn the validated arguments into the child's input (default: `args.input`, else the JSON). */
  toInput?: (args: JsonObject) => AgentInput;
  /** The child's context data (default: the parent run's). */
  context?: (ctx: ToolExecutionContext<State, ParentCtx>) => Ctx;
  /** Sent as a system message before every input of the child run. */
  systemPrompt?: string;
  /** Lets the parent (or anyone holding it) steer the child runs. */
  steering?: SteeringHandle;
  /** Give every child run its own workspace instead of inheriting the parent's. */
  workspace?: WorkspaceIsolation;
  /** Default `"unbounded"`: the child's own caps and the parent's deadline bound it. */
  timeout?: ToolTimeout;
}

/**
 * `agent` as a tool another agent can call: a `SubAgent` wrapped in a `SubAgentTool`, so the child
 * runs inside the live parent run (depth, events, cancellation, usage and cost roll-up, listed in
 * the parent's `children`) exactly like a hand-built sub-agent. Throws `validation` for a bad name.
 */
export function agentAsTool<State, Ctx, ParentCtx>(
  agent: AgentCore<State, Ctx>,
  options: AsToolOptions<State, ParentCtx, Ctx>,
): SubAgentTool<State, ParentCtx, Ctx> {
  const sub = new SubAgent<State, Ctx>({
    name: options.name,
    description: options.description,
    harness: agent,
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    ...(options.steering === undefined ? {} : { steering: options.steering }),
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
  });
  return new SubAgentTool<State, ParentCtx, Ctx>(sub, {
    name: options.name,
    description: options.description,
    ...(options.parameters === undefined ? {} : { parameters: options.parameters }),
    ...(options.toInput === undefined ? {} : { toInput: options.toInput }),
    ...(options.context === undefined ? {} : { data: options.context }),
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
  });
}
