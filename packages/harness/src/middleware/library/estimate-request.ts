import { defaultTokenCounter, type ModelRequest } from "@tinyagents/inference";

/**
 * The estimated input tokens of a request: `defaultTokenCounter` over its messages and tool
 * declarations (about 4 characters per token). Cheap and deterministic; never exact.
 */
export function estimateRequestTokens(request: ModelRequest): number {
  return (
    defaultTokenCounter.countMessages(request.messages) + defaultTokenCounter.countTools(request.tools ?? [])
  );
}
