import { validationError } from "../errors/tinyagents-error.js";
import type { ContentBlock } from "../message/content-block.js";
import type { Message } from "../message/message.js";
import type { ToolSchema } from "../tool/tool-schema.js";
import type { TokenCounter } from "./token-counter.js";

/** Tuning for {@link CharTokenEstimator}. */
export interface CharTokenEstimatorOptions {
  /** Characters (UTF-16 code units) per token; default 4. */
  charsPerToken?: number;
  /** Tokens added per message for role and framing; default 3. */
  perMessageOverhead?: number;
  /** Flat tokens per image block; default 85 (a low-detail image at OpenAI). */
  imageTokens?: number;
}

/**
 * A cheap, deterministic token estimate: `ceil(chars / charsPerToken)` per piece of text.
 * - a message: `perMessageOverhead` + its blocks + its tool calls (+ a user `name`, a tool
 *   message's `toolName`);
 * - text and reasoning blocks by their text; redacted reasoning by its data; json and
 *   provider-extension blocks by their JSON text; images a flat `imageTokens`;
 * - a tool call by `name` + `JSON.stringify(arguments)` (the raw text for an invalid call);
 * - tools by the JSON text of each whole schema (name, description, parameters).
 * Good enough for budgeting and context-window checks; never exact.
 */
export class CharTokenEstimator implements TokenCounter {
  readonly charsPerToken: number;
  readonly perMessageOverhead: number;
  readonly imageTokens: number;

  constructor(options: CharTokenEstimatorOptions = {}) {
    this.charsPerToken = positive(options.charsPerToken ?? 4, "charsPerToken", false);
    this.perMessageOverhead = positive(options.perMessageOverhead ?? 3, "perMessageOverhead", true);
    this.imageTokens = positive(options.imageTokens ?? 85, "imageTokens", true);
  }

  countText(text: string): number {
    return Math.ceil(text.length / this.charsPerToken);
  }

  countMessage(message: Message): number {
    let tokens = this.perMessageOverhead;
    for (const block of message.content) tokens += this.countBlock(block);
    if (message.role === "assistant") {
      for (const call of message.toolCalls) {
        const args = call.invalid === undefined ? JSON.stringify(call.arguments) : call.invalid.raw;
        tokens += this.countText(call.name + args);
      }
    } else if (message.role === "tool") {
      tokens += this.countText(message.toolName);
    } else if (message.role === "user" && message.name !== undefined) {
      tokens += this.countText(message.name);
    }
    return tokens;
  }

  countMessages(messages: readonly Message[]): number {
    let tokens = 0;
    for (const message of messages) tokens += this.countMessage(message);
    return tokens;
  }

  countTools(tools: readonly ToolSchema[]): number {
    let tokens = 0;
    for (const tool of tools) tokens += this.countText(JSON.stringify(tool));
    return tokens;
  }

  private countBlock(block: ContentBlock): number {
    switch (block.type) {
      case "text":
      case "reasoning":
        return this.countText(block.text);
      case "redacted_reasoning":
        return this.countText(block.data);
      case "image":
        return this.imageTokens;
      case "json":
      case "provider_extension":
        return this.countText(JSON.stringify(block.value) ?? "");
    }
  }
}

function positive(value: number, field: string, allowZero: boolean): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw validationError(
      `${field}: expected a finite number ${allowZero ? ">= 0" : "> 0"}, got ${String(value)}`,
      { field },
    );
  }
  return value;
}

/** The shared default estimator (4 characters per token, 3 tokens per message). */
export const defaultTokenCounter: TokenCounter = new CharTokenEstimator();

/** Estimate the tokens of `text` with the default estimator. */
export function estimateTokens(text: string): number {
  return defaultTokenCounter.countText(text);
}
