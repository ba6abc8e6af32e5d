import type { ContentBlock, JsonValue } from "@tinyagents/inference";

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
