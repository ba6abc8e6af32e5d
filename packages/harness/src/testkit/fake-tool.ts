import { abortedError, type JsonObject } from "@tinyagents/inference";
import type {
  ArgsValidation,
  Tool,
  ToolErrorPolicy,
  ToolExecutionContext,
  ToolOutput,
  ToolPolicy,
  ToolTimeout,
} from "../tool/tool.js";
import { sleepOrAbort } from "./abort.js";

/** What a {@link FakeTool} does when called (after its optional delay). */
export type FakeToolHandler<State = unknown, Ctx = unknown> = (
  args: JsonObject,
  ctx: ToolExecutionContext<State, Ctx>,
) => ToolOutput | Promise<ToolOutput>;

/** One recorded call of a {@link FakeTool}. */
export interface FakeToolCall {
  /** A deep copy of the arguments `execute` received. */
  arguments: JsonObject;
  callId: string;
}

/** Options shared by every {@link FakeTool} factory. */
export interface FakeToolOptions {
  description?: string;
  /**
   * JSON Schema for the arguments (default `{ type: "object" }`: anything goes). Only its
   * top-level `required` list is checked by the default `validate`.
   */
  parameters?: JsonObject;
  /** Replaces the default validation (use it to script invalid-argument cases). */
  validate?: (args: JsonObject) => ArgsValidation<JsonObject>;
  /** Wait this long (through `ctx.run.clock.sleep`, abortable) before answering. */
  delayMs?: number;
  strict?: boolean;
  timeout?: ToolTimeout;
  errorPolicy?: ToolErrorPolicy;
  /** Mark the tool idempotent (retryable by `toolRetryMiddleware`). */
  idempotent?: boolean;
  /** The tool's safety classification (read by `toolPolicyMiddleware`). */
  policy?: ToolPolicy;
}

/**
 * A scriptable {@link Tool} that records its calls and the highest number of calls it saw
 * running at once (`maxConcurrent`), for asserting concurrency limits.
 *
 * Factories: `returning` (a fixed output), `failing` (throws), `hanging` (never settles unless
 * aborted), `ignoringAbort` (keeps running after abort), `of` (any function).
 */
export class FakeTool<State = unknown, Ctx = unknown> implements Tool<State, Ctx, JsonObject> {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
  readonly strict?: boolean;
  readonly timeout?: ToolTimeout;
  readonly errorPolicy?: ToolErrorPolicy;
  readonly idempotent?: boolean;
  readonly policy?: ToolPolicy;
  /** Every call, in the order `execute` was entered. */
  readonly calls: FakeToolCall[] = [];
  /** The most calls observed running at the same time. */
  maxConcurrent = 0;
  /** Calls currently running. */
  running = 0;
  private readonly handler: FakeToolHandler<State, Ctx>;
  private readonly options: FakeToolOptions;

  constructor(name: string, handler: FakeToolHandler<State, Ctx>, options: FakeToolOptions = {}) {
    this.name = name;
    this.handler = handler;
    this.options = options;
    this.description = options.description ?? `Fake tool "${name}" (testkit).`;
    this.parameters = options.parameters ?? { type: "object" };
    if (options.strict !== undefined) this.strict = options.strict;
    if (options.timeout !== undefined) this.timeout = options.timeout;
    if (options.errorPolicy !== undefined) this.errorPolicy = options.errorPolicy;
    if (options.idempotent !== undefined) this.idempotent = options.idempotent;
    if (options.policy !== undefined) this.policy = options.policy;
  }

  /** A tool answering every call with `output`. */
  static returning<State = unknown, Ctx = unknown>(
    name: string,
    output: ToolOutput,
    options?: FakeToolOptions,
  ): FakeTool<State, Ctx> {
    return new FakeTool<State, Ctx>(name, () => structuredClone(output), options);
  }

  /** A tool whose every call throws `new Error(message)` (what a buggy user tool does). */
  static failing<State = unknown, Ctx = unknown>(
    name: string,
    message: string,
    options?: FakeToolOptions,
  ): FakeTool<State, Ctx> {
    return new FakeTool<State, Ctx>(
      name,
      () => {
        throw new Error(message);
      },
      options,
    );
  }

  /**
   * A tool that never settles; it rejects with a `cancelled` `TinyAgentsError` (or the abort
   * reason when that is a `TinyAgentsError`, such as the harness's tool timeout) when `ctx.signal` aborts.
   */
  static hanging<State = unknown, Ctx = unknown>(
    name: string,
    options?: FakeToolOptions,
  ): FakeTool<State, Ctx> {
    return new FakeTool<State, Ctx>(
      name,
      // Waiting forever ON THE CLOCK (not on a bare promise): a virtual clock sees work waiting
      // for time, so the run's deadline and the tool's timeout fire at their virtual moments.
      (_args, ctx) =>
        ctx.run.clock.sleep(Number.POSITIVE_INFINITY, ctx.signal).then(
          (): ToolOutput => {
            throw abortedError(ctx.signal, `tool "${name}"`);
          },
          (): ToolOutput => {
            throw abortedError(ctx.signal, `tool "${name}"`);
          },
        ),
      options,
    );
  }

  /**
   * A tool that does not listen to its signal: with `ms` it answers `"finished after <ms> ms"`
   * after `ms` of clock time even if aborted meanwhile; without `ms` it never settles at all.
   * Use it to prove the loop stops waiting for tools that ignore cancellation.
   */
  static ignoringAbort<State = unknown, Ctx = unknown>(
    name: string,
    ms?: number,
    options?: FakeToolOptions,
  ): FakeTool<State, Ctx> {
    return new FakeTool<State, Ctx>(
      name,
      async (_args, ctx) => {
        // Forever on the clock (see `hanging`), deaf to the signal.
        await ctx.run.clock.sleep(ms ?? Number.POSITIVE_INFINITY);
        return `finished after ${ms} ms`;
      },
      options,
    );
  }

  /** A tool running `fn` for every call. */
  static of<State = unknown, Ctx = unknown>(
    name: string,
    fn: FakeToolHandler<State, Ctx>,
    options?: FakeToolOptions,
  ): FakeTool<State, Ctx> {
    return new FakeTool<State, Ctx>(name, fn, options);
  }

  /** How many times `execute` was entered. */
  get callCount(): number {
    return this.calls.length;
  }

  /** The arguments of every call, in order. */
  get argsLog(): JsonObject[] {
    return this.calls.map((call) => call.arguments);
  }

  /** Accepts any object, except that keys in the schema's top-level `required` must be present. */
  validate(args: JsonObject): ArgsValidation<JsonObject> {
    if (this.options.validate !== undefined) return this.options.validate(args);
    const required = this.parameters.required;
    const missing = Array.isArray(required)
      ? required.filter((key): key is string => typeof key === "string" && !(key in args))
      : [];
    if (missing.length > 0)
      return { ok: false, issues: missing.map((key) => `missing required property "${key}"`) };
    return { ok: true, value: args };
  }

  /** Records the call, waits `delayMs` (abortable) if set, then runs the handler. */
  async execute(args: JsonObject, ctx: ToolExecutionContext<State, Ctx>): Promise<ToolOutput> {
    this.calls.push({ arguments: structuredClone(args), callId: ctx.callId });
    this.running++;
    if (this.running > this.maxConcurrent) this.maxConcurrent = this.running;
    try {
      const delay = this.options.delayMs;
      if (delay !== undefined && delay > 0) {
        await sleepOrAbort(
          (ms, signal) => ctx.run.clock.sleep(ms, signal),
          delay,
          ctx.signal,
          `tool "${this.name}"`,
        );
      }
      return await this.handler(args, ctx);
    } finally {
      this.running--;
    }
  }

  /** Forget recorded calls and the concurrency high-water mark. */
  reset(): void {
    this.calls.length = 0;
    this.maxConcurrent = 0;
  }
}
