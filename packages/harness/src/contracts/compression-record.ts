/** What a compression did. */
export type CompressionKind = "summary" | "trim" | "microcompact" | "retrieved" | "output";

/**
 * Why a compression happened and what it touched — enough to explain every message that was
 * removed, replaced or shortened. Plain JSON data.
 */
export interface CompressionProvenance {
  kind: CompressionKind;
  /** Ids (`messageId`) of exactly the messages removed, replaced or shortened. */
  sourceIds: string[];
  /** Estimated tokens of the affected messages (or request) before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** Cache segment ids whose content changed (`history`, `volatile`, ...). */
  segments: string[];
  /** A sentence: the trigger and the rule applied. */
  reason: string;
  /** When, from the run's clock (epoch ms). */
  at: number;
  /** The middleware that compressed. */
  by: string;
  /** The run and model call it happened in. */
  runId?: string;
  callId?: string;
}

/** One compression, with the summary text when it produced one. Plain JSON data. */
export interface SummaryRecord {
  /** `cmp-<n>` within the log that holds it. */
  id: string;
  /** The summary that replaced the sources (`""` for compressions that only removed or shortened). */
  summary: string;
  provenance: CompressionProvenance;
}
