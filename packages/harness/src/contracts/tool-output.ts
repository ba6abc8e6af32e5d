import type { ContentBlock, JsonValue } from "@tinyagents/inference";

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
