import type { StandardSchemaV1 } from "@standard-schema/spec";
import { isJsonObject, type JsonObject, validationError } from "@tinyagents/inference";
import {
  assertInjectedArguments,
  type InjectedArguments,
  withInjectedArguments,
} from "./injected-arguments.js";
import { assertObjectSchema, type CompiledSchema, compileSchema } from "./json-schema-validator.js";
import { formatStandardIssues } from "./standard-issues.js";
import { standardJsonSchema } from "./standard-json-schema.js";
import type {
  ArgsValidation,
  Tool,
  ToolErrorPolicy,
  ToolExecutionContext,
  ToolExecutionSemantics,
  ToolOutput,
  ToolPolicy,
  ToolTimeout,
} from "./tool.js";
import { assertToolName } from "./tool-name.js";
import { assertToolPolicy } from "./tool-policy.js";

/** The fields every `tool({...})` definition shares, whatever its schema kind. */
export interface ToolDefinitionBase {
  /** ASCII snake_case, 1..64 characters (checked here and at registration). */
  name: string;
  /** What the tool does and when to use it; the model reads this. */
  description: string;
  timeout?: ToolTimeout;
  errorPolicy?: ToolErrorPolicy;
  /** Ask providers to enforce the schema strictly. */
  strict?: boolean;
  /** Safe to call again with the same arguments (lets `toolRetryMiddleware` retry it). */
  idempotent?: boolean;
  /** `"once"`: never run twice across a crash and recovery (see docs/durability.md). Default `"at-least-once"`. */
  sideEffects?: ToolExecutionSemantics;
  /** The tool's safety classification, enforced by `toolPolicyMiddleware`. */
  policy?: ToolPolicy;
  /**
   * The tool starts child runs (`agent.run(input, { parent: ctx })`). Required when it does so
   * under an engine (`durable: restateContext`...): the call is then not wrapped in a
   * `tool:<callId>` step, so each child is its own `durable.child` step instead of steps nested
   * in a step (which an engine cannot replay). Without it, such a child is refused there.
   */
  runsChild?: boolean;
}

/** A tool defined from a Standard Schema (zod 4, valibot, arktype, ...). */
export interface StandardSchemaToolDefinition<Schema extends StandardSchemaV1, State = unknown, Ctx = unknown>
  extends ToolDefinitionBase {
  inputSchema: Schema;
  /**
   * The JSON Schema to show the model. Required when the library does not implement Standard
   * JSON Schema (`~standard.jsonSchema`); when given, it wins over the derived one.
   */
  jsonSchema?: JsonObject;
  /**
   * Host-supplied arguments (a user id, a tenant, ...): for each, a function computing its value
   * from the call's context. They are removed from the schema the model sees, a value the model
   * sends under their name is dropped, and `execute` receives the computed values. See
   * `withInjectedArguments`.
   */
  injected?: {
    [K in keyof StandardSchemaV1.InferInput<Schema>]?: (
      ctx: ToolExecutionContext<State, Ctx>,
    ) => StandardSchemaV1.InferInput<Schema>[K] | Promise<StandardSchemaV1.InferInput<Schema>[K]>;
  };
  /** Runs with the schema's validated OUTPUT (defaults applied, transforms run). */
  execute(
    args: StandardSchemaV1.InferOutput<Schema>,
    ctx: ToolExecutionContext<State, Ctx>,
  ): ToolOutput | Promise<ToolOutput>;
}

/** A tool defined from a raw JSON Schema object (`type: "object"`). */
export interface JsonSchemaToolDefinition<State = unknown, Ctx = unknown> extends ToolDefinitionBase {
  inputSchema: JsonObject;
  /** Host-supplied arguments the model can neither see nor set (see the Standard Schema variant). */
  injected?: InjectedArguments<State, Ctx>;
  /** Runs with arguments that passed the JSON Schema check (see {@link compileSchema}). */
  execute(args: JsonObject, ctx: ToolExecutionContext<State, Ctx>): ToolOutput | Promise<ToolOutput>;
}

/**
 * Build a {@link Tool} from a Standard Schema or a raw JSON Schema (told apart by the
 * `~standard` key).
 *
 * Contract:
 * - `name` is checked with `assertToolName`, `timeout` and `description` are checked, and the
 *   JSON Schema (`parameters`) is computed ONCE here: for a Standard Schema from the explicit
 *   `jsonSchema` option, else from `~standard.jsonSchema.input({ target: "draft-2020-12" })`;
 *   for a raw schema it is the schema itself. `$schema` is stripped and the result is a plain
 *   JSON deep copy whose top level must describe an object.
 * - `validate` uses `~standard.validate` (sync or async; issues become `"$.path: message"`
 *   strings, and a throwing validator becomes an issue) or, for raw schemas, the built-in
 *   validator. `execute` only receives validated values.
 * - `injected` names host-supplied arguments: hidden from the model, never taken from it, computed
 *   per call from the context (see `withInjectedArguments`).
 * Throws a `validation` error that says what to fix when any of this does not hold.
 */
export function tool<Schema extends StandardSchemaV1, State = unknown, Ctx = unknown>(
  definition: StandardSchemaToolDefinition<Schema, State, Ctx>,
): Tool<State, Ctx, StandardSchemaV1.InferOutput<Schema>>;
export function tool<State = unknown, Ctx = unknown>(
  definition: JsonSchemaToolDefinition<State, Ctx>,
): Tool<State, Ctx, JsonObject>;
export function tool<State, Ctx>(
  definition:
    | StandardSchemaToolDefinition<StandardSchemaV1, State, Ctx>
    | JsonSchemaToolDefinition<State, Ctx>,
): Tool<State, Ctx, unknown> {
  const { name, description, execute } = definition;
  assertToolName(name);
  if (typeof description !== "string") {
    throw validationError(
      `tool "${name}": \`description\` must be a string telling the model what the tool does`,
      {
        field: "description",
        tool: name,
      },
    );
  }
  if (typeof execute !== "function") {
    throw validationError(`tool "${name}": \`execute\` must be a function (args, ctx) => output`, {
      field: "execute",
      tool: name,
    });
  }
  if (definition.timeout !== undefined) assertToolTimeout(definition.timeout, name);
  if (definition.policy !== undefined) assertToolPolicy(definition.policy, name);
  if (
    definition.sideEffects !== undefined &&
    definition.sideEffects !== "once" &&
    definition.sideEffects !== "at-least-once"
  ) {
    throw validationError(
      `tool "${name}": \`sideEffects\` must be "once" or "at-least-once", got ${JSON.stringify(definition.sideEffects)}`,
      { field: "sideEffects", tool: name },
    );
  }
  if (definition.runsChild !== undefined && typeof definition.runsChild !== "boolean") {
    throw validationError(`tool "${name}": \`runsChild\` must be a boolean`, {
      field: "runsChild",
      tool: name,
    });
  }
  if (definition.idempotent !== undefined && typeof definition.idempotent !== "boolean") {
    throw validationError(`tool "${name}": \`idempotent\` must be a boolean`, {
      field: "idempotent",
      tool: name,
    });
  }
  const policy: unknown = definition.errorPolicy;
  if (policy !== undefined && policy !== "returnError" && policy !== "fail") {
    if (!isJsonObject(policy) || typeof policy.message !== "string") {
      throw validationError(
        `tool "${name}": invalid errorPolicy; use "returnError", "fail" or { message: "<text for the model>" }`,
        { field: "errorPolicy", tool: name },
      );
    }
  }

  const schema: unknown = definition.inputSchema;
  const standard = isStandardSchema(schema) ? schema : undefined;
  const explicit = "jsonSchema" in definition ? definition.jsonSchema : undefined;
  const parameters = toPlainSchema(
    standard === undefined
      ? schema
      : (explicit ??
          standardJsonSchema(standard, {
            label: `tool "${name}"`,
            field: "inputSchema",
            details: { tool: name },
          })),
    name,
  );

  // A raw JSON Schema is compiled here, once per tool, not on every call.
  const raw = standard === undefined ? compileSchema(parameters) : undefined;
  const built: Tool<State, Ctx, unknown> = {
    name,
    description,
    parameters,
    validate:
      raw !== undefined
        ? (args) => validateRaw(raw, args)
        : (args) => validateStandard(standard as StandardSchemaV1, args),
    execute: execute as Tool<State, Ctx, unknown>["execute"],
  };
  if (definition.strict !== undefined) Object.assign(built, { strict: definition.strict });
  if (definition.timeout !== undefined) Object.assign(built, { timeout: definition.timeout });
  if (definition.errorPolicy !== undefined) Object.assign(built, { errorPolicy: definition.errorPolicy });
  if (definition.idempotent !== undefined) Object.assign(built, { idempotent: definition.idempotent });
  if (definition.sideEffects !== undefined) Object.assign(built, { sideEffects: definition.sideEffects });
  if (definition.runsChild !== undefined) Object.assign(built, { runsChild: definition.runsChild });
  if (definition.policy !== undefined) Object.assign(built, { policy: structuredClone(definition.policy) });
  const injected: unknown = definition.injected;
  if (injected === undefined) return built;
  assertInjectedArguments(injected, name);
  return withInjectedArguments(built, injected as InjectedArguments<State, Ctx>, standard);
}

/** True when `value` implements Standard Schema v1 (has a `~standard` object with `validate`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if (
    (typeof value !== "object" && typeof value !== "function") ||
    value === null ||
    !("~standard" in value)
  ) {
    return false;
  }
  const props: unknown = value["~standard"];
  return (
    typeof props === "object" && props !== null && "validate" in props && typeof props.validate === "function"
  );
}

/**
 * Throw a `validation` error unless `timeout` is `"inherit"`, `"unbounded"` or `{ ms }` with a
 * finite, non-negative `ms`.
 */
export function assertToolTimeout(timeout: unknown, toolName: string): asserts timeout is ToolTimeout {
  if (timeout === "inherit" || timeout === "unbounded") return;
  if (
    isJsonObject(timeout) &&
    typeof timeout.ms === "number" &&
    Number.isFinite(timeout.ms) &&
    timeout.ms >= 0
  )
    return;
  throw validationError(
    `tool "${toolName}": invalid timeout ${JSON.stringify(timeout) ?? String(timeout)}; ` +
      `use "inherit", "unbounded" or { ms: <finite milliseconds >= 0> }`,
    { field: "timeout", tool: toolName },
  );
}

function toPlainSchema(schema: unknown, toolName: string): JsonObject {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(schema) ?? "null");
  } catch (error) {
    throw validationError(
      `tool "${toolName}": the input schema is not JSON data (${(error as Error).message}); ` +
        `pass a plain JSON Schema object`,
      { field: "inputSchema", tool: toolName },
    );
  }
  assertObjectSchema(copy, toolName);
  delete copy.$schema;
  return copy;
}

function validateRaw(schema: CompiledSchema, args: JsonObject): ArgsValidation<JsonObject> {
  const issues = schema.validate(args);
  return issues.length === 0 ? { ok: true, value: args } : { ok: false, issues };
}

function validateStandard(
  schema: StandardSchemaV1,
  args: JsonObject,
): ArgsValidation<unknown> | Promise<ArgsValidation<unknown>> {
  let result: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;
  try {
    result = schema["~standard"].validate(args);
  } catch (error) {
    return threw(error);
  }
  return result instanceof Promise ? result.then(fromResult, threw) : fromResult(result);
}

function fromResult(result: StandardSchemaV1.Result<unknown>): ArgsValidation<unknown> {
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, issues: formatStandardIssues(result.issues) };
}

function threw(error: unknown): ArgsValidation<unknown> {
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, issues: [`$: the schema's validator threw: ${message}`] };
}
