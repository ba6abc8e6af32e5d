/** Per-attempt facts the retry logic needs (its own file: provider-attempt and model-deltas both use it). */
export interface AttemptInfo {
  callId: string;
  attempt: number;
  /** Set once a delta reached consumers: such an attempt cannot be retried invisibly. */
  emittedDeltas: boolean;
  /** Set when it failed after the provider may have billed it without reporting all its usage. */
  usageUnknown?: boolean | undefined;
}
