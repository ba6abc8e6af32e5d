import { defaultTokenCounter, type Message, type ModelRequest, type ToolSchema } from "@tinyagents/inference";

// Estimates of what does not change between the calls of a run, by object: a tool declaration
// (the registry's are frozen, and every call of a run sends the same objects) and a message of
// the history (immutable once appended: hooks replace such messages, they do not edit them, see
// `middleware/prefix-fingerprint.ts`). A call then counts only its new messages instead of the
// JSON text of every tool schema and every earlier message again (O(steps²) over a run). System
// messages are counted every time: a hook may edit one in place, and its text costs a length.
const toolTokens = new WeakMap<ToolSchema, number>();
const messageTokens = new WeakMap<Message, number>();

/**
 * The estimated input tokens of a request: `defaultTokenCounter` over its messages and tool
 * declarations (about 4 characters per token). Cheap and deterministic; never exact. Each tool
 * declaration and each non-system message is counted once per object and remembered: they are
 * not edited in place (a changed message or tool is a new object, counted when first seen).
 */
export function estimateRequestTokens(request: ModelRequest): number {
  let tokens = 0;
  for (const message of request.messages) {
    if (message.role === "system") {
      tokens += defaultTokenCounter.countMessage(message);
      continue;
    }
    let count = messageTokens.get(message);
    if (count === undefined) {
      count = defaultTokenCounter.countMessage(message);
      messageTokens.set(message, count);
    }
    tokens += count;
  }
  for (const tool of request.tools ?? []) {
    let count = toolTokens.get(tool);
    if (count === undefined) {
      count = defaultTokenCounter.countTools([tool]);
      toolTokens.set(tool, count);
    }
    tokens += count;
  }
  return tokens;
}
