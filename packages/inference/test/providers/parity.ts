/**
 * Helpers shared by the Anthropic and Ollama replay tests: reduce a response to the facts that
 * streaming and unary parsing must agree on, and collect a model stream without throwing.
 */
import { fileURLToPath } from "node:url";
import type { ContentBlock, ModelResponse, ModelStreamItem, ToolCall, Usage } from "../../src/index.js";

/** Absolute path of a fixture directory under `packages/inference/test/fixtures/`. */
export function fixtureDir(provider: string): string {
  return fileURLToPath(new URL(`../fixtures/${provider}/`, import.meta.url));
}

/** What a response says, without `raw` payloads (which legitimately differ between the two paths). */
export interface ResponseFacts {
  text: string;
  reasoning: ContentBlock[];
  toolCalls: ToolCall[];
  usage: Omit<Usage, "raw"> | undefined;
  finishReason: string | undefined;
  messageId: string | undefined;
}

/** Reduce a response to {@link ResponseFacts}. */
export function factsOf(response: ModelResponse): ResponseFacts {
  const { message } = response;
  let usage: Omit<Usage, "raw"> | undefined;
  if (response.usage !== undefined) {
    const { raw: _raw, ...rest } = response.usage;
    usage = rest;
  }
  return {
    text: message.content
      .filter((b) => b.type === "text")
      .map((b) => (b.type === "text" ? b.text : ""))
      .join(""),
    reasoning: message.content.filter((b) => b.type === "reasoning" || b.type === "redacted_reasoning"),
    toolCalls: message.toolCalls,
    usage,
    finishReason: response.finishReason,
    messageId: message.id,
  };
}

/** Every item of a stream, plus the error it threw (if any). */
export async function drain(
  stream: AsyncIterable<ModelStreamItem>,
): Promise<{ items: ModelStreamItem[]; error: unknown }> {
  const items: ModelStreamItem[] = [];
  try {
    for await (const item of stream) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}

/** The text of the `text_delta` items. */
export function streamedText(items: readonly ModelStreamItem[]): string {
  return items.map((item) => (item.type === "text_delta" ? item.text : "")).join("");
}
