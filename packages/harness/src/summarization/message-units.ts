import type { Message } from "@tinyagents/inference";

/**
 * A run of consecutive messages that must be kept or dropped together: an assistant message
 * with tool calls plus the tool messages answering them, or any other single message.
 * `start`/`end` index the list it was cut from (half-open).
 */
export interface MessageUnit {
  start: number;
  end: number;
  /** The unit is one system message. */
  system: boolean;
}

/**
 * Cut `messages` into units so that trimming or summarizing whole units never separates a tool
 * result from the call that asked for it. An assistant message with tool calls absorbs the
 * immediately following tool messages that answer one of its calls; a tool message that answers
 * nothing before it (already orphaned) is a unit of its own. O(messages).
 */
export function messageUnits(messages: readonly Message[]): MessageUnit[] {
  const units: MessageUnit[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i] as Message;
    let end = i + 1;
    if (message.role === "assistant" && message.toolCalls.length > 0) {
      const ids = new Set(message.toolCalls.map((c) => c.id));
      while (end < messages.length) {
        const next = messages[end] as Message;
        if (next.role !== "tool" || !ids.has(next.toolCallId)) break;
        end++;
      }
    }
    units.push({ start: i, end, system: message.role === "system" });
    i = end;
  }
  return units;
}

/**
 * Tool messages whose call is not in an earlier assistant message of `messages`, and assistant
 * tool calls with no tool message answering them later — the two ways a transcript can be
 * broken for a provider. Returns their indices (empty for a well-formed transcript).
 */
export function findOrphans(messages: readonly Message[]): { toolResults: number[]; toolCalls: number[] } {
  const called = new Map<string, number>();
  const answered = new Set<string>();
  const toolResults: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === "assistant") for (const call of message.toolCalls) called.set(call.id, index);
    else if (message.role === "tool") {
      if (called.has(message.toolCallId)) answered.add(message.toolCallId);
      else toolResults.push(index);
    }
  });
  const toolCalls = [...called].filter(([id]) => !answered.has(id)).map(([, index]) => index);
  return { toolResults, toolCalls: [...new Set(toolCalls)] };
}
