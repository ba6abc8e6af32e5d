import type { JsonValue } from "@tinyagents/inference";
import { type AppendLog, type AppendLogEntry, serializeEntry, validateRead } from "../store/append-log.js";
import { guard, type SqliteDb, type SqliteStatement } from "./sqlite-database.js";

/**
 * An AppendLog in the `log` table of a tinyagents SQLite file. Each append is one IMMEDIATE
 * transaction that takes the next offset of its stream (`MAX(offset) + 1`), so offsets are
 * dense, monotonic and never reused, also with several processes writing to the same file. An
 * append that resolved is committed (WAL, `synchronous = NORMAL`): it survives a process crash.
 * Create it through `SqliteStore.open(...).appendLog`.
 */
export class SqliteAppendLog implements AppendLog {
  private readonly stmt: Record<"next" | "insert" | "read" | "streams", SqliteStatement>;
  private readonly insertMany: (stream: string, lines: readonly string[]) => number[];

  /** @internal Use `SqliteStore.open`. */
  constructor(db: SqliteDb) {
    this.stmt = {
      next: db.prepare("SELECT COALESCE(MAX(offset) + 1, 0) AS next FROM log WHERE stream = ?"),
      insert: db.prepare("INSERT INTO log (stream, offset, value) VALUES (?, ?, ?)"),
      read: db.prepare(
        "SELECT offset, value FROM log WHERE stream = ? AND offset >= ? ORDER BY offset LIMIT ?",
      ),
      streams: db.prepare("SELECT DISTINCT stream FROM log ORDER BY stream"),
    };
    const tx = db.transaction((stream: string, lines: readonly string[]) => {
      const first = (this.stmt.next.get(stream) as { next: number }).next;
      for (const [i, line] of lines.entries()) this.stmt.insert.run(stream, first + i, line);
      return lines.map((_, i) => first + i);
    });
    this.insertMany = (stream, lines) => tx.immediate(stream, lines);
  }

  async append(stream: string, value: JsonValue): Promise<number> {
    return (await this.appendMany(stream, [value]))[0] as number;
  }

  async appendMany(stream: string, values: readonly JsonValue[]): Promise<number[]> {
    const lines = values.map((v) => serializeEntry(v, stream));
    if (lines.length === 0) return [];
    return guard(`append to stream "${stream}"`, () => this.insertMany(stream, lines));
  }

  async readFrom(stream: string, offset: number, limit: number): Promise<AppendLogEntry[]> {
    validateRead(offset, limit);
    const rows = guard(`read stream "${stream}"`, () => this.stmt.read.all(stream, offset, limit)) as {
      offset: number;
      value: string;
    }[];
    return rows.map((r) => ({ offset: r.offset, value: JSON.parse(r.value) as JsonValue }));
  }

  async length(stream: string): Promise<number> {
    return guard(`measure stream "${stream}"`, () => (this.stmt.next.get(stream) as { next: number }).next);
  }

  async listStreams(): Promise<string[]> {
    return guard("list streams", () =>
      (this.stmt.streams.all() as { stream: string }[]).map((r) => r.stream),
    );
  }
}
