import type {
  JsonValue,
  MessageDelta,
  ModelRequest,
  ModelResponse,
  TinyAgentsError,
  ToolCall,
} from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunContext } from "../context/run-context.js";
import type { ToolResult } from "../tool/tool.js";

/** What every hook receives: the caller's state and the live run context. */
export interface HookContext<State = unknown, Ctx = unknown> {
  state: State;
  run: RunContext<Ctx>;
}

/** A tool's progress report, as seen by `onToolDelta`. */
export interface ToolProgress {
  callId: string;
  toolName: string;
  message: string;
  data?: JsonValue;
}

/** Calls the rest of the model onion (inner middleware, then the provider with retry/fallback). */
export type ModelCallNext = (request: ModelRequest) => Promise<ModelResponse>;
/** Calls the rest of the tool onion (inner middleware, then the tool). */
export type ToolCallNext = (call: ToolCall) => Promise<ToolResult>;

/**
 * The primary extension point. Every hook is optional.
 *
 * - `before*` hooks run in registration order, `after*` hooks in reverse.
 * - Hooks edit their argument in place, or return a replacement of the same type.
 * - `onModelDelta` sees every streamed delta; returning `null` drops it, returning a delta
 *   replaces it. Edits reach the consumer AND the final stored response.
 * - `wrapModelCall` / `wrapToolCall` form an onion: the first registered is outermost.
 *   Call `next` zero times (short-circuit), once, or several times (retry).
 * - The first error short-circuits the run; every middleware's `onError` then runs once.
 */
export interface Middleware<State = unknown, Ctx = unknown> {
  readonly name: string;
  beforeAgent?(ctx: HookContext<State, Ctx>): void | Promise<void>;
  afterAgent?(ctx: HookContext<State, Ctx>, run: AgentRun): void | AgentRun | Promise<void | AgentRun>;
  beforeModel?(
    ctx: HookContext<State, Ctx>,
    request: ModelRequest,
  ): void | ModelRequest | Promise<void | ModelRequest>;
  onModelDelta?(ctx: HookContext<State, Ctx>, delta: MessageDelta): void | MessageDelta | null;
  afterModel?(
    ctx: HookContext<State, Ctx>,
    response: ModelResponse,
  ): void | ModelResponse | Promise<void | ModelResponse>;
  beforeTool?(ctx: HookContext<State, Ctx>, call: ToolCall): void | ToolCall | Promise<void | ToolCall>;
  onToolDelta?(ctx: HookContext<State, Ctx>, progress: ToolProgress): void;
  afterTool?(
    ctx: HookContext<State, Ctx>,
    result: ToolResult,
  ): void | ToolResult | Promise<void | ToolResult>;
  onError?(ctx: HookContext<State, Ctx>, error: TinyAgentsError): void | Promise<void>;
  wrapModelCall?(
    ctx: HookContext<State, Ctx>,
    request: ModelRequest,
    next: ModelCallNext,
  ): Promise<ModelResponse>;
  wrapToolCall?(ctx: HookContext<State, Ctx>, call: ToolCall, next: ToolCallNext): Promise<ToolResult>;
}
