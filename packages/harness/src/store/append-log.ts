import { type JsonValue, validationError } from "@tinyagents/inference";
import { assertStorableKey } from "../encoding/storable-key.js";

/** One stored entry of an append log, with the offset `append` returned for it. */
export interface AppendLogEntry {
  offset: number;
  value: JsonValue;
}

/** Values to append to one stream, as part of an {@link AppendLog.appendGroups} batch. */
export interface AppendGroup {
  stream: string;
  values: readonly JsonValue[];
  /**
   * Called with the stream's last stored value (undefined when empty) before the group is
   * written, atomically with the write where the backend can (SQLite, in-memory); throwing
   * refuses the batch. The event journal uses it to detect a second writer of one run tree.
   */
  check?: (last: JsonValue | undefined) => void;
  /**
   * For a check that reads only the `offset` field of the stream's last value: a log that can
   * read that field without decoding the value (SQLite) calls this INSTEAD of `check`, with the
   * field when it is a number (undefined when the stream is empty or its last value has no
   * numeric `offset`), atomically with the write as `check`; other logs call `check`. The event
   * journal gives both (it checks offsets only): no stored record is parsed per group commit.
   */
  checkOffset?: (lastOffset: number | undefined) => void;
  /**
   * The caller promises not to change `values` (nor anything they hold) until the write
   * settles, so a log may serialize them when the write runs instead of at the call (SQLite:
   * inside its group commit, so no JSON text lives across the turn). Without it every log takes
   * its copy at the call, as `append`/`appendMany` do. The event journal sets it: its records
   * never change once handed in.
   */
  valuesFrozen?: true;
}

/**
 * Named append-only streams of JSON values. The contract every implementation keeps:
 * - `append` resolves with the entry's offset only once the entry is stored ("acknowledged");
 * - offsets within a stream are strictly increasing and never reused or renumbered (they may
 *   have gaps, e.g. where a file-backed log skipped a corrupt line);
 * - `readFrom(stream, offset, limit)` returns up to `limit` entries with offset >= `offset`,
 *   in offset order; `length(stream)` is one past the highest offset handed out (0 when empty);
 * - appends to one stream from one process are applied in call order.
 */
export interface AppendLog {
  append(stream: string, value: JsonValue): Promise<number>;
  /** Append several values as one write; resolves with their offsets, in order. */
  appendMany(stream: string, values: readonly JsonValue[]): Promise<number[]>;
  /**
   * Optional group commit: append to several streams as ONE write (one transaction), all or
   * nothing; resolves with each group's offsets, in order. Writers that batch (the event
   * journal) use it when present and fall back to one `appendMany` per stream.
   */
  appendGroups?(groups: readonly AppendGroup[]): Promise<number[][]>;
  readFrom(stream: string, offset: number, limit: number): Promise<AppendLogEntry[]>;
  length(stream: string): Promise<number>;
  /** Names of the streams that exist, sorted. */
  listStreams(): Promise<string[]>;
}

/** The last stream name {@link serializeEntry} found storable. */
let lastCheckedStream: string | undefined;

/**
 * Serialize a value for an append log, rejecting what JSON cannot hold, and a stream name no
 * store can keep losslessly (not well-formed Unicode, or NUL: see `assertStorableKey`).
 */
export function serializeEntry(value: JsonValue, stream: string): string {
  // Journals append many entries to one stream in a row: check each new name once (hot path).
  if (stream !== lastCheckedStream) {
    assertStorableKey(stream, "stream");
    lastCheckedStream = stream;
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    // A BigInt or a cycle: the caller's data, not the store, is at fault.
    throw validationError(
      `append to stream "${stream}": the value is not JSON data (${error instanceof Error ? error.message : String(error)})`,
      { field: "value" },
    );
  }
  if (json === undefined) {
    throw validationError(`append to stream "${stream}": the value is not JSON data`, { field: "value" });
  }
  return json;
}

/**
 * Validate `readFrom` arguments (non-negative integer offset, positive integer limit and, when
 * given, a storable stream name: a lone surrogate must not read another stream's records).
 */
export function validateRead(offset: number, limit: number, stream?: string): void {
  if (stream !== undefined) assertStorableKey(stream, "stream");
  if (!Number.isInteger(offset) || offset < 0) {
    throw validationError(`readFrom offset must be a non-negative integer, got ${String(offset)}`, {
      field: "offset",
    });
  }
  if (!Number.isInteger(limit) || limit < 1) {
    throw validationError(`readFrom limit must be a positive integer, got ${String(limit)}`, {
      field: "limit",
    });
  }
}

/** An in-memory AppendLog (tests, ephemeral runs). Values are deep-copied in and out; offsets are dense. */
export class InMemoryAppendLog implements AppendLog {
  private readonly streams = new Map<string, string[]>();

  async append(stream: string, value: JsonValue): Promise<number> {
    return (await this.appendMany(stream, [value]))[0] as number;
  }

  async appendMany(stream: string, values: readonly JsonValue[]): Promise<number[]> {
    const lines = values.map((v) => serializeEntry(v, stream));
    let entries = this.streams.get(stream);
    if (entries === undefined) {
      entries = [];
      this.streams.set(stream, entries);
    }
    const first = entries.length;
    for (const line of lines) entries.push(line);
    return lines.map((_, i) => first + i);
  }

  async readFrom(stream: string, offset: number, limit: number): Promise<AppendLogEntry[]> {
    validateRead(offset, limit, stream);
    const entries = this.streams.get(stream) ?? [];
    const out: AppendLogEntry[] = [];
    for (let i = offset; i < entries.length && out.length < limit; i++) {
      out.push({ offset: i, value: JSON.parse(entries[i] as string) as JsonValue });
    }
    return out;
  }

  async length(stream: string): Promise<number> {
    return this.streams.get(stream)?.length ?? 0;
  }

  async listStreams(): Promise<string[]> {
    return [...this.streams.keys()].sort();
  }
}
