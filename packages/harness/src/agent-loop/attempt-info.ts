import type { Usage } from "@tinyagents/inference";
import type { CostTotals } from "../contracts/cost-totals.js";

/** Per-attempt facts the retry logic needs (its own file: provider-attempt and model-deltas both use it). */
export interface AttemptInfo {
  callId: string;
  attempt: number;
  /** Set once a delta reached consumers: such an attempt cannot be retried invisibly. */
  emittedDeltas: boolean;
  /** Set when it failed after the provider may have billed it without reporting all its usage. */
  usageUnknown?: boolean | undefined;
  /**
   * What the attempt billed (folded into the run), for its terminal event to carry: the usage of
   * a failed attempt (a successful one's is its response's), and the cost when the model is priced.
   */
  billedUsage?: Usage | undefined;
  billedCost?: CostTotals | undefined;
}
