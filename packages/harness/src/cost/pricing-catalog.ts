import type { ModelPricing } from "./cost.js";

/** One catalog row: a provider's model id (or id family) and its list prices. */
export interface PricingEntry {
  /** Provider name as adapters report it (`openai`, `anthropic`, `deepseek`, `groq`, `xai`, `mistral`). */
  provider: string;
  /** Provider model id; dated or `-latest` variants of it match too (see `lookupPricing`). */
  model: string;
  pricing: ModelPricing;
}

/**
 * The month the figures below were taken from each provider's public pricing page. These are
 * LIST prices in USD per million tokens for standard (non-batch, non-priority, short-context)
 * requests, as of this date; providers change them and add models often. They are defaults,
 * not truth: override or extend them with `lookupPricing(provider, model, overrides)`, or pass
 * `pricing` to `registerModel`. Notes:
 * - OpenAI, DeepSeek, xAI, Groq: no cache-write surcharge (writes bill as input), cached reads
 *   at the listed cached-input price.
 * - Anthropic: cache writes at the 5-minute rate (1.25x input); 1-hour writes (2x) and
 *   long-context (>200k) surcharges are not modelled — override when you use them.
 * - No model here prices reasoning apart from output; reasoning bills as output.
 */
export const PRICING_CATALOG_AS_OF = "2025-11";

const p = (
  inputPerMillion: number,
  outputPerMillion: number,
  cacheReadPerMillion?: number,
  cacheWritePerMillion?: number,
): ModelPricing => ({
  inputPerMillion,
  outputPerMillion,
  ...(cacheReadPerMillion === undefined ? {} : { cacheReadPerMillion }),
  ...(cacheWritePerMillion === undefined ? {} : { cacheWritePerMillion }),
});

const rows = (provider: string, models: Record<string, ModelPricing>): PricingEntry[] =>
  Object.entries(models).map(([model, pricing]) => ({ provider, model, pricing }));

/** The built-in catalog (see {@link PRICING_CATALOG_AS_OF} for the date and caveats). */
export const PRICING_CATALOG: readonly PricingEntry[] = Object.freeze([
  ...rows("openai", {
    "gpt-5.1": p(1.25, 10, 0.125),
    "gpt-5": p(1.25, 10, 0.125),
    "gpt-5-mini": p(0.25, 2, 0.025),
    "gpt-5-nano": p(0.05, 0.4, 0.005),
    "gpt-4.1": p(2, 8, 0.5),
    "gpt-4.1-mini": p(0.4, 1.6, 0.1),
    "gpt-4.1-nano": p(0.1, 0.4, 0.025),
    "gpt-4o": p(2.5, 10, 1.25),
    "gpt-4o-mini": p(0.15, 0.6, 0.075),
    o3: p(2, 8, 0.5),
    "o3-mini": p(1.1, 4.4, 0.55),
    "o4-mini": p(1.1, 4.4, 0.275),
    o1: p(15, 60, 7.5),
  }),
  ...rows("anthropic", {
    "claude-opus-4-5": p(5, 25, 0.5, 6.25),
    "claude-opus-4-1": p(15, 75, 1.5, 18.75),
    "claude-opus-4": p(15, 75, 1.5, 18.75),
    "claude-sonnet-4-5": p(3, 15, 0.3, 3.75),
    "claude-sonnet-4": p(3, 15, 0.3, 3.75),
    "claude-3-7-sonnet": p(3, 15, 0.3, 3.75),
    "claude-haiku-4-5": p(1, 5, 0.1, 1.25),
    "claude-3-5-haiku": p(0.8, 4, 0.08, 1),
  }),
  ...rows("deepseek", {
    // DeepSeek-V3.2: one price for both endpoints; "cache hit" = cached read, "cache miss" = input.
    "deepseek-chat": p(0.28, 0.42, 0.028),
    "deepseek-reasoner": p(0.28, 0.42, 0.028),
  }),
  ...rows("groq", {
    "openai/gpt-oss-120b": p(0.15, 0.6, 0.075),
    "openai/gpt-oss-20b": p(0.075, 0.3, 0.0375),
    "llama-3.3-70b-versatile": p(0.59, 0.79),
    "llama-3.1-8b-instant": p(0.05, 0.08),
    "meta-llama/llama-4-maverick-17b-128e-instruct": p(0.2, 0.6),
    "meta-llama/llama-4-scout-17b-16e-instruct": p(0.11, 0.34),
    "qwen/qwen3-32b": p(0.29, 0.59),
    "moonshotai/kimi-k2-instruct-0905": p(1, 3, 0.5),
  }),
  ...rows("xai", {
    "grok-4": p(3, 15, 0.75),
    "grok-4-fast-reasoning": p(0.2, 0.5, 0.05),
    "grok-4-fast-non-reasoning": p(0.2, 0.5, 0.05),
    "grok-4-1-fast-reasoning": p(0.2, 0.5, 0.05),
    "grok-4-1-fast-non-reasoning": p(0.2, 0.5, 0.05),
    "grok-code-fast-1": p(0.2, 1.5, 0.02),
    "grok-3": p(3, 15, 0.75),
    "grok-3-mini": p(0.3, 0.5, 0.075),
  }),
  ...rows("mistral", {
    "mistral-large": p(2, 6),
    "mistral-medium": p(0.4, 2),
    "mistral-small": p(0.1, 0.3),
    "magistral-medium": p(2, 5),
    "magistral-small": p(0.5, 1.5),
    codestral: p(0.3, 0.9),
    "devstral-medium": p(0.4, 2),
    "devstral-small": p(0.1, 0.3),
    "ministral-8b": p(0.1, 0.1),
    "ministral-3b": p(0.04, 0.04),
    "open-mistral-nemo": p(0.15, 0.15),
  }),
]);
