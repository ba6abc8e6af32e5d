import type { ModelPricing } from "./cost.js";
import {
  PRICING_DATA,
  PRICING_DATA_AS_OF,
  PRICING_DATA_SOURCE,
  type PricingRow,
} from "./pricing-catalog-data.js";

/** One catalog row: a provider's model id (or id family) and its list prices. */
export interface PricingEntry {
  /** Provider name as adapters report it (`openai`, `anthropic`, `google`, `deepseek`, `groq`, `xai`, `mistral`, `together`). */
  provider: string;
  /** Provider model id; dated or `-latest` variants of it match too (see `lookupPricing`). */
  model: string;
  pricing: ModelPricing;
}

/**
 * The date of the built-in prices: the publish date of the `@pydantic/genai-prices` version
 * `scripts/refresh-pricing.mjs` generated `pricing-catalog-data.ts` from. Cost records computed
 * from the catalog carry it as `pricingAsOf`, and the CLI prints it next to the cost, so a stale
 * catalog shows its age. The prices are LIST prices in USD per million tokens for standard
 * (non-batch, short-context) requests; override or extend them with `lookupPricing(provider,
 * model, overrides)` or `registerModel(name, model, { pricing })`. Notes:
 * - cache writes are the 5-minute write price (Anthropic 1.25x input); 1-hour writes (2x) and
 *   long-context tiers are not modelled — override when you use them;
 * - where the source lists no cache price, cached tokens bill at the input price;
 * - the source prices reasoning as output, so reasoning bills as output.
 */
export const PRICING_CATALOG_AS_OF: string = PRICING_DATA_AS_OF;

/** The source of the built-in prices (package and version). */
export const PRICING_CATALOG_SOURCE: string = PRICING_DATA_SOURCE;

function entry(row: PricingRow): PricingEntry {
  const [provider, model, inputPerMillion, outputPerMillion, cacheRead, cacheWrite] = row;
  const pricing: ModelPricing = { inputPerMillion, outputPerMillion, asOf: PRICING_DATA_AS_OF };
  if (cacheRead !== null) pricing.cacheReadPerMillion = cacheRead;
  if (cacheWrite !== null) pricing.cacheWritePerMillion = cacheWrite;
  return { provider, model, pricing };
}

/** The built-in catalog (see {@link PRICING_CATALOG_AS_OF} for the date and caveats). */
export const PRICING_CATALOG: readonly PricingEntry[] = Object.freeze(PRICING_DATA.map(entry));
