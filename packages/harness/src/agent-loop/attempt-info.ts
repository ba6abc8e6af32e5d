import type { ModelResponse, TinyAgentsError, Usage } from "@tinyagents/inference";
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
  /**
   * A live stream's billing, folded once (a `StreamBilling`): when the attempt answers, or when
   * the run ends the attempt while it still streams (`OpenCalls.closeAll`), before its `model.failed`.
   */
  streamBilling?: PendingBilling | undefined;
}

/** An attempt's billing still to fold into the run (see `AttemptInfo.streamBilling`). */
export interface PendingBilling {
  /** The attempt answered with `response`: fold it, unless already folded. */
  answered(response: ModelResponse): void;
  /** The run ends the attempt now (`runError`: why): fold what it billed so far. */
  settle(runError: TinyAgentsError): void;
}
