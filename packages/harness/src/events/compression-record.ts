import { validationError } from "@tinyagents/inference";
import type { CompressionProvenance, SummaryRecord } from "../contracts/compression-record.js";

export type {
  CompressionKind,
  CompressionProvenance,
  SummaryRecord,
} from "../contracts/compression-record.js";

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
