import { validationError } from "@tinyagents/inference";

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

/**
 * A bounded, append-only log of {@link SummaryRecord}s (oldest dropped first). Every compression
 * middleware keeps one (`middleware.log`); the same facts are emitted as `context.compressed`
 * events, so journals hold them too. Throws `validation` for a non-positive `maxRecords`.
 */
export class CompressionLog {
  readonly maxRecords: number;
  private readonly entries: SummaryRecord[] = [];
  private next = 0;

  constructor(maxRecords = 1024) {
    if (!Number.isInteger(maxRecords) || maxRecords <= 0) {
      throw validationError(`CompressionLog: maxRecords must be a positive integer, got ${maxRecords}`, {
        field: "maxRecords",
      });
    }
    this.maxRecords = maxRecords;
  }

  /** Append a record; returns it with its id. */
  add(summary: string, provenance: CompressionProvenance): SummaryRecord {
    const record: SummaryRecord = { id: `cmp-${++this.next}`, summary, provenance };
    this.entries.push(record);
    if (this.entries.length > this.maxRecords) this.entries.shift();
    return record;
  }

  /** The records kept, oldest first (a copy of the list). */
  records(): SummaryRecord[] {
    return this.entries.slice();
  }

  /** The records of one run. */
  forRun(runId: string): SummaryRecord[] {
    return this.entries.filter((r) => r.provenance.runId === runId);
  }

  get size(): number {
    return this.entries.length;
  }
}
