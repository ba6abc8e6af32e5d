import { type FileHandle, open } from "node:fs/promises";
import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import type { AppendLogEntry } from "./append-log.js";
import type { StoreWarning } from "./store-warning.js";

const NEWLINE = 0x0a;
const CHUNK = 1 << 20;

/**
 * One JSONL stream file: the state machine behind `JsonlAppendLog`. Not safe for concurrent use
 * on its own — the log serializes every call per stream.
 *
 * Offsets are the ordinal of each complete, non-empty line: an entry's offset is fixed by the
 * bytes before it, which are never rewritten, so offsets are never renumbered. A trailing
 * partial line (no newline yet) is not counted; if this process appends after one, it first
 * writes a newline, turning the fragment into a complete corrupt line that keeps its offset and
 * is skipped (with a warning) on read. Empty lines are ignored.
 */
export class JsonlStreamFile {
  readonly file: string;
  private handle: FileHandle | undefined;
  /** Bytes up to and including the last newline processed. */
  private scanned = 0;
  /** File size seen at the last refresh or write. */
  private size = 0;
  /** Byte position of each counted line; the index is the offset. */
  private readonly starts: number[] = [];
  private warnedTornAt = -1;
  private readonly warnedCorrupt = new Set<number>();
  private readonly warn: (warning: StoreWarning) => void;
  private readonly fsync: boolean;

  constructor(file: string, warn: (warning: StoreWarning) => void, fsync: boolean) {
    this.file = file;
    this.warn = warn;
    this.fsync = fsync;
  }

  /** Entries counted so far (after picking up other writers' lines). */
  async length(): Promise<number> {
    await this.refresh();
    return this.starts.length;
  }

  /** Append complete JSON lines (no newlines inside) in one write; returns their offsets. */
  async append(lines: readonly string[]): Promise<number[]> {
    await this.refresh();
    const torn = this.size > this.scanned;
    const buffer = Buffer.from(`${torn ? "\n" : ""}${lines.join("\n")}\n`, "utf8");
    const sizeBefore = this.size;
    const countBefore = this.starts.length;
    const handle = await this.open();
    try {
      for (let written = 0; written < buffer.length; ) {
        const { bytesWritten } = await handle.write(buffer, written, buffer.length - written, null);
        written += bytesWritten;
      }
      if (this.fsync) await handle.datasync();
    } catch (error) {
      throw ioError("append to", this.file, error);
    }
    const { size: sizeAfter } = await handle.stat();
    if (sizeAfter !== sizeBefore + buffer.length) return this.locate(lines, countBefore);
    // Nobody else wrote in between: our bytes are exactly [sizeBefore, sizeAfter).
    let position = sizeBefore;
    if (torn) {
      this.starts.push(this.scanned);
      position += 1;
    }
    const offsets: number[] = [];
    for (const line of lines) {
      offsets.push(this.starts.length);
      this.starts.push(position);
      position += Buffer.byteLength(line, "utf8") + 1;
    }
    this.scanned = sizeAfter;
    this.size = sizeAfter;
    return offsets;
  }

  /** Up to `limit` parseable entries with offset >= `offset`. */
  async read(offset: number, limit: number): Promise<AppendLogEntry[]> {
    await this.refresh();
    const count = this.starts.length;
    if (offset >= count) return [];
    const end = Math.min(count, offset + limit);
    const from = this.starts[offset] as number;
    const to = end < count ? (this.starts[end] as number) : this.scanned;
    const out: AppendLogEntry[] = [];
    for (const [i, line] of splitLines(await this.readBytes(from, to)).entries()) {
      const at = offset + i;
      try {
        out.push({ offset: at, value: JSON.parse(line) as JsonValue });
      } catch {
        if (!this.warnedCorrupt.has(at)) {
          this.warnedCorrupt.add(at);
          this.warn({
            code: "corrupt_line",
            message: `${this.file}: line for offset ${at} is not valid JSON (a torn write?); skipping it`,
            file: this.file,
            offset: at,
            byte: this.starts[at] as number,
          });
        }
      }
    }
    return out;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  /** Count lines other writers (or a previous process) added since the last look. */
  private async refresh(): Promise<void> {
    const handle = await this.open();
    const { size } = await handle.stat();
    if (size < this.scanned) {
      throw new TinyAgentsError(
        "storage",
        `${this.file} shrank from ${this.scanned} to ${size} bytes; an append log must never be truncated ` +
          "(offsets would be renumbered) — restore the file from a backup",
        { details: { file: this.file, expected: this.scanned, size } },
      );
    }
    let lineStart = this.scanned;
    for (let at = this.scanned; at < size; at += CHUNK) {
      const chunk = await this.readBytes(at, Math.min(size, at + CHUNK));
      for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) {
        const end = at + i;
        if (end > lineStart) this.starts.push(lineStart);
        lineStart = end + 1;
      }
    }
    this.scanned = lineStart;
    this.size = size;
    if (size > this.scanned && this.warnedTornAt !== this.scanned) {
      this.warnedTornAt = this.scanned;
      this.warn({
        code: "torn_tail",
        message:
          `${this.file}: ignoring a partial last line of ${size - this.scanned} bytes at byte ${this.scanned} ` +
          "(a write cut short by a crash, or one still in progress in another process)",
        file: this.file,
        byte: this.scanned,
      });
    }
  }

  /** Slow path: another process appended concurrently; find our lines by content. */
  private async locate(lines: readonly string[], countBefore: number): Promise<number[]> {
    await this.refresh();
    const from = this.starts[countBefore];
    if (from !== undefined) {
      const found = splitLines(await this.readBytes(from, this.scanned));
      for (let i = 0; i + lines.length <= found.length; i++) {
        if (lines.every((line, j) => found[i + j] === line)) return lines.map((_, j) => countBefore + i + j);
      }
    }
    throw new TinyAgentsError(
      "storage",
      `${this.file}: appended lines could not be found after the write; another process may be rewriting the file`,
      { details: { file: this.file } },
    );
  }

  private async open(): Promise<FileHandle> {
    if (this.handle === undefined) {
      try {
        // O_APPEND: every write lands at the end of the file, atomically with respect to other
        // appenders on a local file system, whatever our idea of the file's size.
        this.handle = await open(this.file, "a+");
      } catch (error) {
        throw ioError("open", this.file, error);
      }
    }
    return this.handle;
  }

  private async readBytes(from: number, to: number): Promise<Buffer> {
    const handle = await this.open();
    const buffer = Buffer.allocUnsafe(to - from);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, from + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === buffer.length ? buffer : buffer.subarray(0, filled);
  }
}

/** The non-empty lines of a chunk that ends at a line boundary. */
function splitLines(bytes: Buffer): string[] {
  return bytes
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "");
}

function ioError(action: string, file: string, error: unknown): TinyAgentsError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new TinyAgentsError(
    "storage",
    `could not ${action} ${file}${code ? ` (${code})` : ""}; check the directory exists and is writable`,
    { cause: error, details: { file, ...(code ? { errno: code } : {}) } },
  );
}
