export { addCost, type CostTotals, emptyCost, estimateCost, type ModelPricing } from "./cost.js";
