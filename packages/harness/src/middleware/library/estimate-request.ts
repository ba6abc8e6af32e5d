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

/** `RunRequestEstimator.counts` entry of a system message: counted again on every call. */
const SYSTEM = -1;

/**
 * {@link estimateRequestTokens} for the successive calls of ONE run (same answers), remembering
 * per run instead of in the process-wide tables: the previous call's messages by position, so a
 * call whose history is the previous call's plus new messages costs one identity comparison per
 * earlier message (no property read: a transcript's messages have several shapes, and reading
 * `role` of each one every call cost more than the rest of the estimate); each message's count,
 * once the history has shifted (trimmed, summarized); and the count of a frozen tool list (the
 * registry's) sent again. Entries of a long-lived `WeakMap`, set for every new message of every
 * run, cost the garbage collector several times what counting the message does; a table that
 * dies with the run costs little, and an append-only history needs none. A new run of a thread
 * counts the thread's earlier messages once, at its first call.
 */
export class RunRequestEstimator {
  private readonly seen: Message[] = [];
  /** The count of the message at each position of `seen`, or `SYSTEM`. */
  private readonly counts: number[] = [];
  /**
   * Counts by message, kept from the first call whose history is not the previous one's plus new
   * messages (a message replaced or moved): such a history usually keeps shifting (a trimming or
   * summarizing middleware), and its messages then change positions.
   */
  private known: Map<Message, number> | undefined;
  private tools: readonly ToolSchema[] | undefined;
  private toolCount = 0;

  estimate(request: ModelRequest): number {
    const messages = request.messages;
    const seen = this.seen;
    const counts = this.counts;
    const before = seen.length;
    let tokens = 0;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i] as Message;
      if (seen[i] !== message) {
        if (i < before && this.known === undefined) this.shifted();
        seen[i] = message;
        counts[i] = message.role === "system" ? SYSTEM : this.count(message);
      }
      const count = counts[i] as number;
      // A hook may edit a system message in place: counted as it is now (its text costs a length).
      tokens += count === SYSTEM ? defaultTokenCounter.countMessage(message) : count;
    }
    if (before > messages.length) {
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

  /** The history is no longer append-only: remember counts by message from now on. */
  private shifted(): void {
    const known = new Map<Message, number>();
    for (let i = 0; i < this.seen.length; i++) {
      const count = this.counts[i] as number;
      if (count !== SYSTEM) known.set(this.seen[i] as Message, count);
    }
    this.known = known;
  }

  private count(message: Message): number {
    const known = this.known;
    if (known === undefined) return defaultTokenCounter.countMessage(message);
    let count = known.get(message);
    if (count === undefined) {
      count = defaultTokenCounter.countMessage(message);
      known.set(message, count);
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
