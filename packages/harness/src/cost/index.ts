export {
  addCost,
  type CostTotals,
  emptyCost,
  estimateCost,
  type ModelPricing,
  markCostUnknown,
  rollUpCost,
} from "./cost.js";
export { lookupPricing, type PricingOverrides } from "./lookup-pricing.js";
export {
  PRICING_CATALOG,
  PRICING_CATALOG_AS_OF,
  PRICING_CATALOG_SOURCE,
  type PricingEntry,
} from "./pricing-catalog.js";
export { formatCost, formatTotalTokens } from "./unknown-usage.js";
