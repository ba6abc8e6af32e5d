import { type ParseArgsConfig, parseArgs } from "node:util";
import { usageError } from "./cli-error.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** `node:util` `parseArgs` with errors turned into usage errors that point at `--help`. */
export function parseCommandArgs<T extends Options>(
  command: string,
  argv: readonly string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(
      `${(error as Error).message.replace(/\. To specify a positional.*$/s, "")}\nsee: tinyagents ${command} --help`,
    );
  }
}

/** Flags every command shares. */
export const COMMON_OPTIONS = {
  help: { type: "boolean", short: "h" },
  db: { type: "string" },
} as const;

/** The flags of commands that run an agent (`run`, `chat`). */
export const AGENT_OPTIONS = {
  ...COMMON_OPTIONS,
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  "api-key-env": { type: "string" },
  system: { type: "string" },
  "no-stream": { type: "boolean" },
  "prompt-tools": { type: "boolean" },
  tools: { type: "string", short: "t", multiple: true },
  mcp: { type: "string", multiple: true },
  thread: { type: "string" },
  "allow-host": { type: "string", multiple: true },
  "max-model-calls": { type: "string" },
  "no-capture-content": { type: "boolean" },
} as const;

/** Parse a positive integer flag or fail with a usage error naming it. */
export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw usageError(`--${flag} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}
