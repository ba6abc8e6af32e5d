import type {
  AssistantMessage,
  ContentBlock,
  Message,
  ToolMessage,
  UserMessage,
} from "@tinyagents/inference";

/** The coalesced transcript, plus where each output message came from. */
export interface CoalescedTranscript {
  messages: Message[];
  /** `origins[k]` is the index (in the input) of the first message output `k` was built from. */
  origins: number[];
}

/**
 * Rewrite native tool turns as prompt-guided text, for endpoints that take neither assistant
 * `tool_calls` nor the `tool` role:
 * - an assistant message with tool calls keeps its content and gets one text block per call,
 *   `<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>` (an invalid call is written with
 *   `{}` arguments); its `toolCalls` become `[]`;
 * - each run of consecutive tool messages becomes ONE user message: per result a
 *   `<tool_result name="..."[ error="true"]>\n...\n</tool_result>` text block (text blocks joined
 *   by a blank line, JSON blocks as JSON text), with any images the results carried right after
 *   their text block;
 * - a user message directly after such a run is merged into it (results first), so user and
 *   assistant turns keep alternating — unless `boundaries` has the user message's index (the
 *   start of another cache segment), in which case they stay separate;
 * - every other message is kept as is (same object).
 * Never mutates the input.
 */
export function coalescePromptToolTurns(
  messages: readonly Message[],
  boundaries: ReadonlySet<number> = new Set(),
): CoalescedTranscript {
  const out: Message[] = [];
  const origins: number[] = [];
  let pending: ContentBlock[] = [];
  let pendingOrigin = -1;
  const flush = (): void => {
    if (pending.length === 0) return;
    out.push({ role: "user", content: pending });
    origins.push(pendingOrigin);
    pending = [];
  };
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      if (pending.length === 0) pendingOrigin = index;
      pending.push(...resultBlocks(message));
      return;
    }
    if (message.role === "user" && pending.length > 0 && !boundaries.has(index)) {
      const merged: UserMessage = { role: "user", content: [...pending, ...message.content] };
      if (message.name !== undefined) merged.name = message.name;
      out.push(merged);
      origins.push(pendingOrigin);
      pending = [];
      return;
    }
    flush();
    out.push(message.role === "assistant" && message.toolCalls.length > 0 ? withCallText(message) : message);
    origins.push(index);
  });
  flush();
  return { messages: out, origins };
}

function withCallText(message: AssistantMessage): AssistantMessage {
  const content: ContentBlock[] = [...message.content];
  for (const call of message.toolCalls) {
    const body = JSON.stringify({
      name: call.name,
      arguments: call.invalid === undefined ? call.arguments : {},
    });
    content.push({ type: "text", text: `<tool_call>\n${body}\n</tool_call>` });
  }
  const out: AssistantMessage = { role: "assistant", content, toolCalls: [] };
  if (message.id !== undefined) out.id = message.id;
  if (message.usage !== undefined) out.usage = message.usage;
  return out;
}

function resultBlocks(message: ToolMessage): ContentBlock[] {
  const texts: string[] = [];
  const images: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "json") texts.push(JSON.stringify(block.value));
    else if (block.type === "image") images.push(block);
  }
  const error = message.isError ? ' error="true"' : "";
  const name = message.toolName.replace(/["<>]/g, "");
  return [
    { type: "text", text: `<tool_result name="${name}"${error}>\n${texts.join("\n\n")}\n</tool_result>` },
    ...images,
  ];
}
