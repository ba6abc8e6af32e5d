import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type JsonValue, TinyAgentsError, validationError } from "@tinyagents/inference";
import { type AppendLog, type AppendLogEntry, serializeEntry, validateRead } from "./append-log.js";
import { HandlePool } from "./handle-pool.js";
import { JsonlStreamFile } from "./jsonl-stream-file.js";
import { KeyedMutex } from "./keyed-mutex.js";
import { validateStoreName } from "./store-names.js";
import { defaultStoreWarning, type StoreWarning } from "./store-warning.js";

/** Options of a {@link JsonlAppendLog}. */
export interface JsonlAppendLogOptions {
  /** Receives torn-tail and corrupt-line warnings (default: `process.emitWarning`). */
  onWarning?: (warning: StoreWarning) => void;
  /** `fdatasync` after every append (survives power loss, not just a process crash). Default false. */
  fsync?: boolean;
  /**
   * Most file descriptors the log holds open at once (default {@link DEFAULT_MAX_OPEN_FILES}).
   * Streams beyond it are closed least recently used first and reopened on their next use (their
   * line index stays in memory, so a reopen costs one `open` and one `stat`); when every
   * descriptor is in use, further calls wait. One stream per root run therefore never means one
   * descriptor per root run.
   */
  maxOpenFiles?: number;
  /**
   * `"lru"` (default): idle streams keep their descriptor until another stream needs it.
   * `"per_call"`: every append or read opens, works and closes (open-append-close).
   * See docs/reliability.md for the measured difference.
   */
  handles?: "lru" | "per_call";
}

/** Default {@link JsonlAppendLogOptions.maxOpenFiles}: far below the common 1,024 descriptor limit. */
export const DEFAULT_MAX_OPEN_FILES = 64;

/**
 * An AppendLog with one JSONL file per stream: `<directory>/<stream>.jsonl`, one JSON value per
 * line. For local development and single-host deployments.
 *
 * Guarantees:
 * - an acknowledged append (its promise resolved) survives a crash of this process: the line
 *   has been handed to the OS in a single `write` (and flushed to disk with `fsync: true`);
 * - offsets are line ordinals fixed by the bytes before them, so they are never renumbered;
 * - a torn last line (a crash mid-write) is ignored with a `torn_tail` warning; if the log
 *   appends after it, the fragment becomes a skipped `corrupt_line` that keeps its offset;
 * - appends within this process are serialized per stream, in call order;
 * - several processes may append to one stream: each append is one `O_APPEND` write, so lines
 *   never interleave, and each writer finds its own offsets after the write.
 *
 * Limits: multi-process safety relies on `O_APPEND` atomicity, which local POSIX file systems
 * give but NFS and some network file systems do not. If two processes append byte-identical
 * values at the same instant, each may be told the same offset (both lines are still stored).
 * A partial line another process is still writing is reported as a torn tail, and if this
 * process appends at that moment an empty line is written (harmless, ignored). Streams are
 * never compacted; the whole per-stream line index lives in memory (8 bytes per entry). At most
 * `maxOpenFiles` descriptors are open at once, however many streams there are.
 * Use the SQLite store for heavier concurrent use.
 */
export class JsonlAppendLog implements AppendLog {
  readonly directory: string;
  private readonly files = new Map<string, JsonlStreamFile>();
  private readonly mutex = new KeyedMutex();
  private readonly onWarning: (warning: StoreWarning) => void;
  private readonly fsync: boolean;
  private readonly pool: HandlePool;

  constructor(directory: string, options: JsonlAppendLogOptions = {}) {
    if (typeof directory !== "string" || directory === "") {
      throw validationError("JsonlAppendLog needs a directory path", { field: "directory" });
    }
    this.directory = directory;
    this.onWarning = options.onWarning ?? defaultStoreWarning;
    this.fsync = options.fsync ?? false;
    const maxOpen = options.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES;
    if (!Number.isInteger(maxOpen) || maxOpen < 1) {
      throw validationError(`JsonlAppendLog: maxOpenFiles must be an integer >= 1, got ${String(maxOpen)}`, {
        field: "maxOpenFiles",
      });
    }
    const handles = options.handles ?? "lru";
    if (handles !== "lru" && handles !== "per_call") {
      throw validationError(`JsonlAppendLog: handles must be "lru" or "per_call", got ${String(handles)}`, {
        field: "handles",
      });
    }
    this.pool = new HandlePool(maxOpen, handles === "lru");
    try {
      mkdirSync(directory, { recursive: true });
    } catch (error) {
      throw new TinyAgentsError("storage", `could not create the log directory ${directory}`, {
        cause: error,
        details: { directory },
      });
    }
  }

  async append(stream: string, value: JsonValue): Promise<number> {
    return (await this.appendMany(stream, [value]))[0] as number;
  }

  async appendMany(stream: string, values: readonly JsonValue[]): Promise<number[]> {
    const lines = values.map((v) => serializeEntry(v, stream));
    if (lines.length === 0) return [];
    return this.withStream(stream, (file) => file.append(lines));
  }

  async readFrom(stream: string, offset: number, limit: number): Promise<AppendLogEntry[]> {
    validateRead(offset, limit, stream);
    return this.withStream(stream, (file) => file.read(offset, limit));
  }

  async length(stream: string): Promise<number> {
    return this.withStream(stream, (file) => file.length());
  }

  async listStreams(): Promise<string[]> {
    return readdirSync(this.directory)
      .filter((name) => name.endsWith(".jsonl") && !name.startsWith("."))
      .map((name) => name.slice(0, -".jsonl".length))
      .sort();
  }

  /** Close every open file handle. The log stays usable: later calls reopen (and rescan) files. */
  async close(): Promise<void> {
    const files = [...this.files.entries()];
    this.files.clear();
    await Promise.all(
      files.map(([stream, file]) =>
        this.mutex.run(stream, async () => {
          this.pool.forget(stream);
          await file.close();
        }),
      ),
    );
  }

  /** Descriptors open right now (at most `maxOpenFiles`). */
  get openFiles(): number {
    return this.pool.openCount;
  }

  private withStream<T>(stream: string, fn: (file: JsonlStreamFile) => Promise<T>): Promise<T> {
    validateStoreName(stream, "stream");
    // The file is looked up now, not when the call's turn comes: a `close()` issued meanwhile
    // then sees it, and closes it after the call (the mutex keeps the order), so no handle the
    // call opens outlives the close.
    let file = this.files.get(stream);
    if (file === undefined) {
      file = new JsonlStreamFile(join(this.directory, `${stream}.jsonl`), this.onWarning, this.fsync);
      this.files.set(stream, file);
    }
    const target = file;
    return this.mutex.run(stream, async () => {
      await this.pool.acquire(stream, target);
      try {
        return await fn(target);
      } finally {
        await this.pool.release(stream);
      }
    });
  }
}
