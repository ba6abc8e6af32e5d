import type { JsonObject } from "../../json/json-value.js";
import type { Message, ToolMessage } from "../../message/message.js";
import { toAnthropicBlock, toAnthropicImage, toSystemBlock } from "./map-content.js";
import type {
  AnthropicContentBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicPassthroughBlock,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
} from "./wire-types.js";

/** A wire block that can carry a `cache_control` marker (thinking blocks cannot). */
export type AnthropicCacheableBlock = { cache_control?: unknown } & object;

/** The mapped conversation plus, per neutral message, where a cache breakpoint for it would go. */
export interface AnthropicMappedMessages {
  system: AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
  /**
   * `cacheTargets[i]` is the last block produced for `request.messages[i]` that may carry
   * `cache_control`, or `undefined` when the message produced none. The objects are the ones in
   * `system` / `messages`, so setting `cache_control` on them edits the body.
   */
  cacheTargets: Array<AnthropicCacheableBlock | undefined>;
}

type WireBlock = AnthropicContentBlock | AnthropicPassthroughBlock;

/**
 * Map neutral messages to Anthropic's `system` + `messages`:
 * - LEADING system messages (before the first non-system message) become `system` text blocks;
 *   a system message later in the conversation becomes user-turn text instead, so the prompt
 *   prefix keeps its order (hoisting it would change the cached prefix every time it changes);
 * - user content maps block by block (see `toAnthropicBlock`);
 * - assistant content maps block by block (signed reasoning -> `thinking` verbatim, redacted ->
 *   `redacted_thinking`), then each tool call becomes a `tool_use` block (`input` = arguments);
 * - tool messages become `tool_result` blocks (`is_error: true` only when set) in a user turn;
 * - consecutive turns with the same role are merged into one, and within a user turn the
 *   `tool_result` blocks are moved before any other block (stable), as the API requires;
 * - a message that maps to no block at all is skipped.
 */
export function toAnthropicMessages(messages: readonly Message[]): AnthropicMappedMessages {
  const system: AnthropicTextBlock[] = [];
  const out: AnthropicMessageParam[] = [];
  const cacheTargets: Array<AnthropicCacheableBlock | undefined> = [];
  let leading = true;
  messages.forEach((message, i) => {
    if (message.role === "system" && leading) {
      let target: AnthropicCacheableBlock | undefined;
      message.content.forEach((block, j) => {
        const mapped = toSystemBlock(block, `messages[${i}].content[${j}]`);
        if (mapped === undefined) return;
        system.push(mapped);
        target = mapped;
      });
      cacheTargets.push(target);
      return;
    }
    leading = false;
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = messageBlocks(message, i);
    cacheTargets.push(lastCacheable(blocks));
    if (blocks.length === 0) return;
    const previous = out[out.length - 1];
    if (previous !== undefined && previous.role === role) previous.content.push(...blocks);
    else out.push({ role, content: blocks });
  });
  for (const turn of out) if (turn.role === "user") toolResultsFirst(turn.content);
  return { system, messages: out, cacheTargets };
}

function messageBlocks(message: Message, index: number): WireBlock[] {
  if (message.role === "tool") return [toolResultBlock(message)];
  const blocks: WireBlock[] = [];
  if (message.role === "system") {
    message.content.forEach((block, j) => {
      const mapped = toSystemBlock(block, `messages[${index}].content[${j}]`);
      if (mapped !== undefined) blocks.push(mapped);
    });
    return blocks;
  }
  for (const block of message.content) {
    const mapped = toAnthropicBlock(block);
    if (mapped !== undefined) blocks.push(mapped);
  }
  if (message.role === "assistant") {
    for (const call of message.toolCalls) {
      const input: JsonObject = call.arguments;
      blocks.push({ type: "tool_use", id: call.id, name: call.name, input });
    }
  }
  return blocks;
}

function toolResultBlock(message: ToolMessage): AnthropicToolResultBlock {
  const content: Array<AnthropicTextBlock | AnthropicImageBlock> = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text !== "") content.push({ type: "text", text: block.text });
    } else if (block.type === "json") {
      content.push({ type: "text", text: JSON.stringify(block.value) });
    } else if (block.type === "image") {
      content.push(toAnthropicImage(block));
    }
  }
  const result: AnthropicToolResultBlock = { type: "tool_result", tool_use_id: message.toolCallId };
  if (content.length > 0) result.content = content;
  if (message.isError) result.is_error = true;
  return result;
}

function lastCacheable(blocks: readonly WireBlock[]): AnthropicCacheableBlock | undefined {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (block.type !== "thinking" && block.type !== "redacted_thinking") return block;
  }
  return undefined;
}

function toolResultsFirst(content: WireBlock[]): void {
  const firstOther = content.findIndex((b) => b.type !== "tool_result");
  if (firstOther === -1) return;
  const lastResult = content.findLastIndex((b) => b.type === "tool_result");
  if (lastResult < firstOther) return;
  const results = content.filter((b) => b.type === "tool_result");
  const others = content.filter((b) => b.type !== "tool_result");
  content.splice(0, content.length, ...results, ...others);
}
