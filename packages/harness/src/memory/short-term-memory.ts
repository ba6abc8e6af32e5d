import type { Message } from "@tinyagents/inference";
import type { ChatHistory } from "./chat-history.js";

/**
 * Short-term memory policy: which history backend to use and how much of it to load.
 * The loop loads history before the first model call and appends the run's new messages after.
 */
export interface ShortTermMemory {
  history: ChatHistory;
  /** Keep at most this many of the most recent stored messages when loading (default: all). */
  maxMessages?: number;
}

/** Load a thread's history, applying the `maxMessages` window without orphaning tool results. */
export async function loadHistory(memory: ShortTermMemory, threadId: string): Promise<Message[]> {
  const all = await memory.history.load(threadId);
  if (memory.maxMessages === undefined || all.length <= memory.maxMessages) return all;
  let start = all.length - memory.maxMessages;
  // A window must not begin with tool results whose assistant call was cut off.
  while (start < all.length && all[start]?.role === "tool") start++;
  return all.slice(start);
}
