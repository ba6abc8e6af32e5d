import type { JsonObject } from "@tinyagents/inference";
import type { ToolExecutionContext } from "./tool-execution-context.js";
import type { ToolOutput } from "./tool-output.js";
import type { ToolPolicy } from "./tool-policy.js";

/** How long a tool may run. `inherit` takes the harness's ToolTimeoutSettings default. */
export type ToolTimeout = "inherit" | "unbounded" | { ms: number };

/**
 * What happens when a tool's `execute` throws:
 * - `returnError` (default): the model gets an error result and the loop continues;
 * - `fail`: the run fails with code `tool`;
 * - `{ message }`: the model gets this fixed message as the error result (hides internals).
 * Cancellation and timeouts of the whole run always propagate.
 */
/** How often a tool's side effect may happen across a crash (see `Tool.sideEffects`). */
export type ToolExecutionSemantics = "at-least-once" | "once";

/**
 * What a tool's failure (a throw) does to the run: `"returnError"` (the default) hands the model an
 * error tool result naming the failure, so it can try something else; `"fail"` fails the run with
 * the tool's error; `{ message }` hands the model that fixed text instead (hiding the error's
 * details). A timeout always becomes an error tool result.
 */
export type ToolErrorPolicy = "returnError" | "fail" | { message: string };

/** Outcome of validating arguments: the typed value, or human-readable issues. */
export type ArgsValidation<Args> = { ok: true; value: Args } | { ok: false; issues: string[] };

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
  /**
   * Crash semantics of its side effect. Default `"at-least-once"`: a call that was running when
   * the process died runs again when the run is recovered (dedupe with `ctx.idempotencyKey`).
   * `"once"` (at most once): with a checkpoint store the loop records an intent before the call
   * and its result after; a recovered run never runs a call whose intent has no result, the model
   * gets an error result saying the outcome is unknown. Without a checkpoint store it is metadata.
   */
  readonly sideEffects?: ToolExecutionSemantics;
  /**
   * The tool's work is a child run (a sub-agent tool, `agent.asTool`) that goes through
   * `DurableContext.child`: a journaled run does not wrap its calls in a `tool:<callId>` step (the
   * child's own steps are journaled and its result recorded), so an engine never sees a step
   * nested in a step.
   */
  readonly runsChild?: boolean;
  /** What the tool may do to the world; enforced by `toolPolicyMiddleware`. Plain JSON data. */
  readonly policy?: ToolPolicy;
  validate(args: JsonObject): ArgsValidation<Args> | Promise<ArgsValidation<Args>>;
  execute(args: Args, ctx: ToolExecutionContext<State, Ctx>): ToolOutput | Promise<ToolOutput>;
}

/** A tool with its argument type erased, as held by registries. */
// biome-ignore lint/suspicious/noExplicitAny: argument types are erased in the registry; validate() restores safety.
export type AnyTool<State = unknown, Ctx = unknown> = Tool<State, Ctx, any>;
