import type { StandardSchemaV1 } from "@standard-schema/spec";
import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  TinyAgentsError,
  validationError,
} from "@tinyagents/inference";
import { compileSchema } from "./json-schema-validator.js";
import { formatStandardIssues } from "./standard-issues.js";
import type { ArgsValidation, Tool, ToolExecutionContext } from "./tool.js";

/**
 * Host-supplied arguments of a tool (`tool({ injected })`): for each named argument, a function
 * computing its value from the call's context (the caller's state, the run's data, ...). The model
 * never sees these arguments (they are removed from the advertised schema) and cannot set them
 * (a value it sends under that name is dropped before validation).
 */
export type InjectedArguments<State = unknown, Ctx = unknown> = Record<
  string,
  (ctx: ToolExecutionContext<State, Ctx>) => JsonValue | Promise<JsonValue>
>;

/** Throw a `validation` error unless `injected` maps argument names to functions. */
export function assertInjectedArguments(
  injected: unknown,
  toolName: string,
): asserts injected is InjectedArguments {
  const bad = (why: string) =>
    validationError(
      `tool "${toolName}": invalid \`injected\` (${why}); use { argumentName: (ctx) => value, ... }`,
      { field: "injected", tool: toolName },
    );
  if (typeof injected !== "object" || injected === null || Array.isArray(injected))
    throw bad("not an object");
  const names = Object.keys(injected);
  if (names.length === 0) throw bad("it names no argument");
  for (const name of names) {
    if (typeof (injected as Record<string, unknown>)[name] !== "function")
      throw bad(`"${name}" is not a function`);
  }
}

/** `schema` without the injected argument names in its top-level `properties` and `required`. */
export function projectInjected(schema: JsonObject, names: readonly string[]): JsonObject {
  const projected: JsonObject = { ...schema };
  if (isJsonObject(schema.properties)) {
    const properties: JsonObject = { ...schema.properties };
    for (const name of names) delete properties[name];
    projected.properties = properties;
  }
  if (Array.isArray(schema.required)) {
    projected.required = schema.required.filter((name) => typeof name !== "string" || !names.includes(name));
  }
  return projected;
}

/**
 * Wrap a built tool so that the `injected` arguments are host-supplied:
 * - `parameters` (what the model sees) is the schema without them;
 * - `validate` drops any value the model sent under an injected name, then checks the rest
 *   against that projected schema (for a Standard Schema tool, its JSON Schema view);
 * - `execute` computes each injected value from the call's context, adds it to the validated
 *   arguments, checks the whole against the full schema (the Standard Schema itself, with its
 *   transforms, or the raw JSON Schema) and only then runs the tool's own `execute`. A failing
 *   check throws a `validation` error (the tool's error policy decides what the model sees).
 */
export function withInjectedArguments<State, Ctx>(
  built: Tool<State, Ctx, unknown>,
  injected: InjectedArguments<State, Ctx>,
  standard: StandardSchemaV1 | undefined,
): Tool<State, Ctx, unknown> {
  const names = Object.keys(injected);
  const full = built.parameters;
  const parameters = projectInjected(full, names);
  const ownSchema = compileSchema(parameters);
  const fullSchema = standard === undefined ? compileSchema(full) : undefined;
  const execute = built.execute;
  const strip = (args: JsonObject): JsonObject => {
    if (!names.some((name) => Object.hasOwn(args, name))) return args;
    const copy: JsonObject = { ...args };
    for (const name of names) delete copy[name];
    return copy;
  };
  return {
    ...built,
    parameters,
    validate(args: JsonObject): ArgsValidation<unknown> {
      const own = strip(args);
      const issues = ownSchema.validate(own);
      return issues.length === 0 ? { ok: true, value: own } : { ok: false, issues };
    },
    async execute(args: unknown, ctx: ToolExecutionContext<State, Ctx>) {
      const merged: JsonObject = { ...(args as JsonObject) };
      for (const name of names)
        merged[name] = await (injected[name] as InjectedArguments<State, Ctx>[string])(ctx);
      let value: unknown = merged;
      if (standard !== undefined) {
        const result = await standard["~standard"].validate(merged);
        if (result.issues !== undefined) throw invalid(built.name, formatStandardIssues(result.issues));
        value = result.value;
      } else {
        const issues = fullSchema?.validate(merged) ?? [];
        if (issues.length > 0) throw invalid(built.name, issues);
      }
      return execute.call(built, value, ctx);
    },
  };
}

function invalid(toolName: string, issues: readonly string[]): TinyAgentsError {
  return new TinyAgentsError(
    "validation",
    `invalid arguments for tool "${toolName}" (with its injected arguments): ${issues.join("; ")}`,
    { details: { tool: toolName } },
  );
}
