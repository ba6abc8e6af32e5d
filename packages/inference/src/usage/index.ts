export {
  addUsage,
  emptyUsage,
  emptyUsageTotals,
  recordUsage,
  type Usage,
  type UsageTotals,
  uncachedInputTokens,
  usage,
} from "./usage.js";
