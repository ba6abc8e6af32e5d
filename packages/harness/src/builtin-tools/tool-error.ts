import type { ToolReturn } from "../tool/tool.js";

/**
 * A tool result the model sees as an error (`isError: true`) with one text block. Built-in tools
 * return this for bad input or failed I/O instead of throwing, so the model can correct itself.
 */
export function toolError(message: string): ToolReturn {
  return { kind: "tool_return", content: [{ type: "text", text: message }], isError: true };
}

/** The message of an unknown throwable (`Error.message`, else `String(value)`). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
