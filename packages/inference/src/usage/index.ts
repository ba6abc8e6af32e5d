export {
  addUsage,
  addUsageTotals,
  emptyUsage,
  emptyUsageTotals,
  recordUsage,
  type Usage,
  type UsageTotals,
  uncachedInputTokens,
  usage,
} from "./usage.js";
