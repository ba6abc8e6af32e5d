export {
  addUsage,
  addUsageTotals,
  emptyUsage,
  emptyUsageTotals,
  markUsageUnknown,
  recordUsage,
  type Usage,
  type UsageTotals,
  uncachedInputTokens,
  usage,
} from "./usage.js";
