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
  for (const message of request.messages) tokens += messageEstimate(message);
  return tokens + toolsEstimate(request.tools);
}

/**
 * {@link estimateRequestTokens} for the successive calls of ONE run (same answers), remembering
 * per run instead of in the process-wide tables: the previous call's messages by position, so a
 * call whose history is the previous call's plus new messages costs one identity comparison per
 * earlier message; each message's count (a history that shifted); and the count of a frozen
 * tool list (the registry's) sent again. Entries of a long-lived `WeakMap`, set for every new
 * message of every run, cost the garbage collector several times what counting the message
 * does; a table that dies with the run costs little. A new run of a thread counts the thread's
 * earlier messages once, at its first call.
 */
export class RunRequestEstimator {
  private readonly seen: Message[] = [];
  private readonly counts: number[] = [];
  private readonly known = new Map<Message, number>();
  private tools: readonly ToolSchema[] | undefined;
  private toolCount = 0;

  estimate(request: ModelRequest): number {
    const messages = request.messages;
    const seen = this.seen;
    const counts = this.counts;
    let tokens = 0;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i] as Message;
      if (message.role === "system") {
        tokens += defaultTokenCounter.countMessage(message);
        continue;
      }
      if (seen[i] !== message) {
        seen[i] = message;
        counts[i] = this.count(message);
      }
      tokens += counts[i] as number;
    }
    if (seen.length > messages.length) {
      seen.length = messages.length;
      counts.length = messages.length;
    }
    const tools = request.tools;
    // Only a frozen list cannot have changed since it was counted.
    if (tools === undefined || tools !== this.tools || !Object.isFrozen(tools)) {
      this.tools = tools;
      this.toolCount = toolsEstimate(tools);
    }
    return tokens + this.toolCount;
  }

  private count(message: Message): number {
    let count = this.known.get(message);
    if (count === undefined) {
      count = defaultTokenCounter.countMessage(message);
      this.known.set(message, count);
    }
    return count;
  }
}

function messageEstimate(message: Message): number {
  if (message.role === "system") return defaultTokenCounter.countMessage(message);
  let count = messageTokens.get(message);
  if (count === undefined) {
    count = defaultTokenCounter.countMessage(message);
    messageTokens.set(message, count);
  }
  return count;
}

function toolsEstimate(tools: readonly ToolSchema[] | undefined): number {
  let tokens = 0;
  for (const tool of tools ?? []) {
    let count = toolTokens.get(tool);
    if (count === undefined) {
      count = defaultTokenCounter.countTools([tool]);
      toolTokens.set(tool, count);
    }
    tokens += count;
  }
  return tokens;
}
