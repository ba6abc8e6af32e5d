import { validationError } from "@tinyagents/inference";

/** The longest tool name providers accept (OpenAI and Anthropic both cap names at 64 characters). */
export const MAX_TOOL_NAME_LENGTH = 64;

const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;

/** True when `name` is a valid tool name: ASCII snake_case `^[a-z][a-z0-9_]*$`, 1..64 characters. */
export function isValidToolName(name: unknown): name is string {
  return typeof name === "string" && name.length <= MAX_TOOL_NAME_LENGTH && TOOL_NAME_PATTERN.test(name);
}

/**
 * A snake_case spelling of `name` that passes {@link isValidToolName}: camelCase and PascalCase
 * are split on case changes (`getWeather` -> `get_weather`, `HTTPRequest` -> `http_request`),
 * accents are dropped, every other run of non-alphanumeric characters becomes one `_`, a
 * leading digit gets a `tool_` prefix, and the result is cut to 64 characters. Never empty.
 */
export function suggestToolName(name: string): string {
  let out = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (out === "") out = "my_tool";
  if (/^[0-9]/.test(out)) out = `tool_${out}`;
  return out.slice(0, MAX_TOOL_NAME_LENGTH).replace(/_+$/, "");
}

/** Why `name` is not a valid tool name, or `undefined` when it is valid. */
function problemWith(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.length > MAX_TOOL_NAME_LENGTH) {
    return `it is ${name.length} characters long (the limit is ${MAX_TOOL_NAME_LENGTH})`;
  }
  const bad = [...new Set(name.replace(/[a-z0-9_]/g, ""))];
  if (bad.length > 0) {
    const upper = bad.every((c) => /[A-Z]/.test(c));
    const shown = bad.map((c) => JSON.stringify(c)).join(", ");
    return upper
      ? `it contains uppercase letters (${shown})`
      : `it contains characters outside a-z, 0-9 and _ (${shown})`;
  }
  if (!/^[a-z]/.test(name)) return "it must start with a lowercase letter";
  return undefined;
}

/**
 * Throw a `validation` error unless `name` is ASCII snake_case (`^[a-z][a-z0-9_]*$`,
 * 1..64 characters). The message names the bad name, says why it is invalid and suggests a
 * valid spelling; `details` is `{ field: "name", name }`.
 */
export function assertToolName(name: unknown): asserts name is string {
  if (isValidToolName(name)) return;
  if (typeof name !== "string") {
    throw validationError(
      `invalid tool name ${describe(name)}: a tool name must be a string of ASCII snake_case (for example "get_weather")`,
      { field: "name", name: describe(name) },
    );
  }
  const why = problemWith(name) ?? "it is not snake_case";
  throw validationError(
    `invalid tool name ${JSON.stringify(name)}: ${why}. Tool names must be ASCII snake_case ` +
      `(lowercase letters, digits and underscores, starting with a letter, 1-${MAX_TOOL_NAME_LENGTH} characters); ` +
      `rename it, for example to ${JSON.stringify(suggestToolName(name))}`,
    { field: "name", name },
  );
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}
