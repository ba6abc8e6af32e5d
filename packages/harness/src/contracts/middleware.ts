import type {
  JsonValue,
  MessageDelta,
  ModelRequest,
  ModelResponse,
  TinyAgentsError,
  ToolCall,
} from "@tinyagents/inference";
import type { AgentRun } from "./agent-run.js";
import type { HookContext } from "./hook-context.js";
import type { ToolResult } from "./tool-result.js";

/**
 * What a middleware's `beforeModel` hook may change in a request (declared, then checked):
 * - `"prefix"`: the cacheable prompt prefix — system prompt, tool declarations, cacheable
 *   segments / earlier history (trimming, compression, tool filtering, redaction of history);
 * - `"tail"`: only the volatile tail — messages appended at the end, the current turn;
 * - `"metadata"`: only request options (model, temperature, tags, metadata, timeouts), no messages.
 * Undeclared middleware are treated like `"tail"`. Whatever the declaration, the stack reports
 * every prefix change as `cache.layout_changed`; with `RunPolicy.protectPromptPrefix` a prefix
 * change by a middleware that did not declare `"prefix"` fails the run with `validation`.
 */
export type MiddlewareChanges = "prefix" | "tail" | "metadata";

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
 *   replaces it. Edits reach the consumer AND the final stored response. `onModelStreamEnd`
 *   may release deltas a middleware held back once the stream ends.
 * - `wrapModelCall` / `wrapToolCall` form an onion: the first registered is outermost.
 *   Call `next` zero times (short-circuit), once, or several times (retry).
 * - The first error short-circuits the run; every middleware's `onError` then runs once.
 * - `ctx.run.requestControl(...)` from `beforeModel` skips this turn's model call; from
 *   `afterModel` it ends the run before the turn's tools run (an interrupt leaves them pending
 *   for `harness.resume`; a stop answers them "not executed").
 * - State a middleware keeps per run (counters, ...) is lost when a run pauses and resumes in a
 *   fresh run context, unless it implements `saveState` / `restoreState` (JSON, keyed by `name`).
 */
export interface Middleware<State = unknown, Ctx = unknown> {
  readonly name: string;
  /** What this middleware may change in model requests (see {@link MiddlewareChanges}). */
  readonly changes?: MiddlewareChanges;
  beforeAgent?(ctx: HookContext<State, Ctx>): void | Promise<void>;
  afterAgent?(ctx: HookContext<State, Ctx>, run: AgentRun): void | AgentRun | Promise<void | AgentRun>;
  beforeModel?(
    ctx: HookContext<State, Ctx>,
    request: ModelRequest,
  ): void | ModelRequest | Promise<void | ModelRequest>;
  onModelDelta?(ctx: HookContext<State, Ctx>, delta: MessageDelta): void | MessageDelta | null;
  /**
   * A streamed model response ended (completed, or failed with `end.error`). Return deltas this
   * middleware held back (e.g. the tail a redactor kept to see whether it is part of a secret):
   * they go through the `onModelDelta` hooks of middleware registered after this one, out to
   * consumers, and — on completion — into the stored response. Not called for unary calls.
   */
  onModelStreamEnd?(
    ctx: HookContext<State, Ctx>,
    end: { callId: string; error?: TinyAgentsError },
  ): void | MessageDelta[];
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
  /**
   * The run `ctx.run` is pausing (`run.paused` is being built): return this middleware's state
   * for that run as plain JSON, or `undefined` for none. It is stored in
   * `PausedRun.middlewareState[name]` and handed to `restoreState` when the run resumes, possibly
   * in another process and another harness instance. Synchronous; a non-JSON value or a throw
   * fails the run (`validation` / `middleware` naming this middleware and hook).
   * Middleware that implement `saveState` or `restoreState` must have unique names in their
   * harness (`use` throws `validation` otherwise): the state is keyed by name.
   */
  saveState?(ctx: HookContext<State, Ctx>): JsonValue | undefined;
  /**
   * The paused run `ctx.run` resumes and this middleware saved `saved` when it paused: reinstate
   * it. Called once, before anything else of the resumed run (before `run.started` and the
   * pending tool calls), with a copy of the stored value; not called when nothing was saved under
   * this middleware's name. Set the state, do not add to it: the same `saved` may be restored
   * more than once (a resume retried). Synchronous; a throw (e.g. `validation` for a value it
   * cannot read) makes `harness.resume` throw before the run starts.
   */
  restoreState?(ctx: HookContext<State, Ctx>, saved: JsonValue): void;
}
