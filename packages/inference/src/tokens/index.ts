export {
  CharTokenEstimator,
  type CharTokenEstimatorOptions,
  defaultTokenCounter,
  estimateTokens,
} from "./char-estimator.js";
export type { TokenCounter } from "./token-counter.js";
