import type { ModelPricing } from "./cost.js";
import { PRICING_CATALOG, type PricingEntry } from "./pricing-catalog.js";

/**
 * User prices that win over the catalog: a record keyed `"provider/model"` (for example
 * `"openai/gpt-4o"`, `"groq/openai/gpt-oss-120b"`), or catalog-shaped entries.
 */
export type PricingOverrides = Readonly<Record<string, ModelPricing>> | readonly PricingEntry[];

const PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  "x-ai": "xai",
  grok: "xai",
  mistralai: "mistral",
  "mistral-ai": "mistral",
  claude: "anthropic",
};

/** Version suffixes a catalog id may carry: dates (`-2024-08-06`, `-20250514`), `-2411`, `-0709`, `-latest`. */
const VERSION_SUFFIX = /^(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{4}|-latest|@\d{8})$/;

/**
 * The price of `provider`'s `modelId`, or `undefined` when neither the overrides nor the
 * catalog know it (callers must then mark cost unknown, never assume zero).
 *
 * Matching is case-insensitive. An exact id wins; otherwise the longest known id that the
 * model id extends with only a version suffix (`claude-sonnet-4-5-20250929` ->
 * `claude-sonnet-4-5`, `mistral-large-latest` -> `mistral-large`). Other variants
 * (`gpt-4o-audio-preview`) are unknown rather than guessed. Overrides are searched first with
 * the same rules.
 */
export function lookupPricing(
  provider: string,
  modelId: string,
  overrides?: PricingOverrides,
): ModelPricing | undefined {
  if (overrides === undefined) {
    const key = `${provider}\u0000${modelId}`;
    if (catalogCache.has(key)) {
      const hit = catalogCache.get(key);
      return hit === undefined ? undefined : { ...hit };
    }
    const found = resolve(provider, modelId, undefined);
    if (catalogCache.size < 1000) catalogCache.set(key, found);
    return found === undefined ? undefined : { ...found };
  }
  return resolve(provider, modelId, overrides);
}

/** Catalog lookups are memoized: the loop asks once per model call. */
const catalogCache = new Map<string, ModelPricing | undefined>();

function resolve(
  provider: string,
  modelId: string,
  overrides: PricingOverrides | undefined,
): ModelPricing | undefined {
  const wantedProvider = normalizeProvider(provider);
  let wantedModel = modelId.toLowerCase();
  if (wantedModel.startsWith(`${wantedProvider}/`))
    wantedModel = wantedModel.slice(wantedProvider.length + 1);
  const sources = overrides === undefined ? [PRICING_CATALOG] : [toEntries(overrides), PRICING_CATALOG];
  for (const entries of sources) {
    const found = bestMatch(entries, wantedProvider, wantedModel);
    if (found !== undefined) return { ...found.pricing };
  }
  return undefined;
}

function bestMatch(
  entries: readonly PricingEntry[],
  provider: string,
  model: string,
): PricingEntry | undefined {
  let best: PricingEntry | undefined;
  for (const entry of entries) {
    if (normalizeProvider(entry.provider) !== provider) continue;
    const id = entry.model.toLowerCase();
    if (id === model) return entry;
    if (model.startsWith(id) && VERSION_SUFFIX.test(model.slice(id.length))) {
      if (best === undefined || id.length > best.model.length) best = entry;
    }
  }
  return best;
}

function toEntries(overrides: PricingOverrides): readonly PricingEntry[] {
  if (Array.isArray(overrides)) return overrides as readonly PricingEntry[];
  return Object.entries(overrides as Record<string, ModelPricing>).map(([key, pricing]) => {
    const slash = key.indexOf("/");
    return slash < 0
      ? { provider: "", model: key, pricing }
      : { provider: key.slice(0, slash), model: key.slice(slash + 1), pricing };
  });
}

function normalizeProvider(provider: string): string {
  const lower = provider.toLowerCase();
  return PROVIDER_ALIASES[lower] ?? lower;
}
