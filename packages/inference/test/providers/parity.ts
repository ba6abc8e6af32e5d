/**
 * Helpers shared by the provider replay tests (Anthropic, OpenAI Responses, Ollama): the shape of a
 * fixture's expectations, reduce a response to the facts that streaming and unary parsing must
 * agree on, collect a model stream without throwing, and check a classified provider error.
 */
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import {
  type ContentBlock,
  type JsonValue,
  type ModelResponse,
  type ModelStreamItem,
  ProviderError,
  type ToolCall,
  type Usage,
} from "../../src/index.js";
import { type Fixture, loadFixtures } from "../replay/fixtures.js";

/** Absolute path of a fixture directory under `packages/inference/test/fixtures/`. */
export function fixtureDir(provider: string): string {
  return fileURLToPath(new URL(`../fixtures/${provider}/`, import.meta.url));
}

/**
 * The preamble of every provider replay test: a provider's fixture directory, its fixtures, the
 * ones that answer and the ones that end in an HTTP error.
 */
export function providerFixtures<E extends { error?: { status?: number } }>(
  provider: string,
): { dir: string; fixtures: Fixture<E>[]; answers: Fixture<E>[]; httpErrors: Fixture<E>[] } {
  const dir = fixtureDir(provider);
  const fixtures = loadFixtures<E>(dir);
  return {
    dir,
    fixtures,
    answers: fixtures.filter((f) => f.expect.error === undefined),
    httpErrors: fixtures.filter((f) => f.expect.error?.status !== undefined),
  };
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

/** The error a fixture's `expect.error` describes. */
export interface FixtureErrorExpect {
  status?: number;
  providerCode?: string;
  kind: string;
  retryable: boolean;
  retryAfterMs?: number;
  code: string;
}

/** What a recorded answer (or failure) must parse to: a fixture's `expect`. */
export interface FixtureExpect {
  messageId?: string;
  text?: string;
  json?: JsonValue;
  reasoning?: JsonValue[];
  toolCalls?: JsonValue[];
  finishReason?: string;
  usage?: JsonValue;
  partialText?: string;
  error?: FixtureErrorExpect;
}

/**
 * Assert that `error` is the {@link ProviderError} `want` describes, raised by `provider`; with
 * `apiKey`, that the key appears nowhere in it. `providerCode` is compared unless
 * `checkProviderCode` is false (providers whose fixtures do not record it).
 */
export function expectFixtureError(
  error: unknown,
  want: FixtureErrorExpect,
  options: { provider: string; apiKey?: string; checkProviderCode?: boolean },
): void {
  expect(ProviderError.isProviderError(error)).toBe(true);
  const e = error as ProviderError;
  expect(e.status).toBe(want.status);
  if (options.checkProviderCode ?? true) expect(e.providerCode).toBe(want.providerCode);
  expect(e.kind).toBe(want.kind);
  expect(e.retryable).toBe(want.retryable);
  expect(e.code).toBe(want.code);
  if (want.retryAfterMs !== undefined) expect(e.retryAfterMs).toBe(want.retryAfterMs);
  expect(e.provider).toBe(options.provider);
  if (options.apiKey !== undefined) {
    expect(`${e.message} ${e.rawBody} ${JSON.stringify(e)}`).not.toContain(options.apiKey);
  }
}

/** Assert that a response's {@link ResponseFacts} are what a fixture's `expect` says. */
export function expectFacts(want: FixtureExpect, facts: ResponseFacts): void {
  expect(facts.text).toBe(want.text);
  expect(facts.reasoning).toEqual(want.reasoning);
  expect(facts.finishReason).toBe(want.finishReason);
  expect(facts.usage).toEqual(want.usage);
  expect(facts.messageId).toBe(want.messageId);
  expect(facts.toolCalls).toEqual(want.toolCalls);
  if (want.json !== undefined) expect(JSON.parse(facts.text)).toEqual(want.json);
}
