import type { ContentBlock, JsonObject, JsonValue } from "@tinyagents/inference";
import type { RunContext } from "../context/run-context.js";

/** How long a tool may run. `inherit` takes the harness's ToolTimeoutSettings default. */
export type ToolTimeout = "inherit" | "unbounded" | { ms: number };

/**
 * What happens when a tool's `execute` throws:
 * - `returnError` (default): the model gets an error result and the loop continues;
 * - `fail`: the run fails with code `tool`;
 * - `{ message }`: the model gets this fixed message as the error result (hides internals).
 * Cancellation and timeouts of the whole run always propagate.
 */
export type ToolErrorPolicy = "returnError" | "fail" | { message: string };

/** Outcome of validating arguments: the typed value, or human-readable issues. */
export type ArgsValidation<Args> = { ok: true; value: Args } | { ok: false; issues: string[] };

/** What a tool sees while it runs. */
export interface ToolExecutionContext<State = unknown, Ctx = unknown> {
  state: State;
  /** The live run context (config, data, stores, events, clock, ...). */
  run: RunContext<Ctx>;
  /** The tool call id (correlates with the assistant message and the result). */
  callId: string;
  /** Aborts when the run is cancelled or this tool's timeout passes. Pass it on to I/O. */
  signal: AbortSignal;
  /** Report progress; becomes a `tool.progress` event and reaches `onToolDelta` middleware. */
  progress(message: string, data?: JsonValue): void;
}

/** What `execute` may return: text, any JSON value, or a full result (for error flags, raw data). */
export type ToolOutput = string | JsonValue | ToolReturn;

/** An explicit tool return with content blocks and flags. */
export interface ToolReturn {
  kind: "tool_return";
  content: ContentBlock[];
  isError?: boolean;
  raw?: JsonValue;
  /** Ids of artifacts the tool stored outside the transcript (tracked on `run.artifacts`). */
  artifacts?: string[];
}

/**
 * What a tool does to the world, from harmless to dangerous: `none` (pure computation), `read`
 * (reads local or remote state), `write` (changes local state), `destructive` (deletes or
 * overwrites), `external` (acts outside the system: sends messages, moves money, calls APIs with
 * side effects).
 */
export type ToolSideEffect = "none" | "read" | "write" | "destructive" | "external";

/**
 * A tool's self-declared safety classification (serializable). `toolPolicyMiddleware` hides tools
 * whose policy the run cannot satisfy, rejects their calls, and truncates oversized results.
 */
export interface ToolPolicy {
  sideEffects?: ToolSideEffect;
  /** Every call needs a human's approval (see `humanApprovalMiddleware`). */
  requiresApproval?: boolean;
  /** The tool may only run inside a sandboxed workspace. */
  requiresSandbox?: boolean;
  /** Results larger than this many UTF-8 bytes are truncated before the model sees them. */
  maxResultBytes?: number;
}

/**
 * A typed capability exposed to agents.
 *
 * Contract: `name` is ASCII snake_case (checked at registration); `parameters` is a JSON Schema
 * object computed once; `validate` checks untrusted model arguments before `execute` runs, and
 * `execute` only ever sees validated arguments.
 */
export interface Tool<State = unknown, Ctx = unknown, Args = JsonObject> {
  readonly name: string;
  readonly description: string;
  /** JSON Schema for the arguments (type "object"). */
  readonly parameters: JsonObject;
  /** Ask providers to enforce the schema strictly. */
  readonly strict?: boolean;
  readonly timeout?: ToolTimeout;
  readonly errorPolicy?: ToolErrorPolicy;
  /**
   * Calling it twice with the same arguments has the same effect as calling it once, so a failed
   * call may be retried (`toolRetryMiddleware` only retries tools that set this).
   */
  readonly idempotent?: boolean;
  /** What the tool may do to the world; enforced by `toolPolicyMiddleware`. Plain JSON data. */
  readonly policy?: ToolPolicy;
  validate(args: JsonObject): ArgsValidation<Args> | Promise<ArgsValidation<Args>>;
  execute(args: Args, ctx: ToolExecutionContext<State, Ctx>): ToolOutput | Promise<ToolOutput>;
}

/** A tool with its argument type erased, as held by registries. */
// biome-ignore lint/suspicious/noExplicitAny: argument types are erased in the registry; validate() restores safety.
export type AnyTool<State = unknown, Ctx = unknown> = Tool<State, Ctx, any>;

/** The recorded result of one tool call. Plain JSON data. */
export interface ToolResult {
  callId: string;
  toolName: string;
  content: ContentBlock[];
  isError: boolean;
  /** Raw data the tool returned beside its content. */
  raw?: JsonValue;
  elapsedMs: number;
  /** References to artifacts the tool produced (files, offloaded outputs). */
  artifacts?: string[];
}
