import { mkdirSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { dirname } from "node:path";
import { TinyAgentsError, validationError } from "@tinyagents/inference";
import type { EventSink } from "../events/event-sink.js";
import type { AgentObservation } from "./agent-observation.js";
import { BoundedObservationQueue, type QueuedSinkOptions } from "./bounded-queue.js";
import type { ObservationSink } from "./sink.js";

/**
 * Appends every observation as one JSON line to a file (all runs in one file: a log to tail,
 * grep or ship). Writes are batched and queued like `JournalSink` (bounded, drops reported as
 * `journal.dropped` with sink `"jsonl"`); each batch is one `O_APPEND` write. Put a
 * `RedactingSink` in front of it. For replayable per-run journals use
 * `AppendLogEventJournal` over a `JsonlAppendLog` instead.
 */
export class JsonlSink implements ObservationSink {
  readonly file: string;
  private readonly queue: BoundedObservationQueue;
  private handle: Promise<FileHandle> | undefined;

  constructor(file: string, options: QueuedSinkOptions = {}) {
    if (typeof file !== "string" || file === "")
      throw validationError("JsonlSink needs a file path", { field: "file" });
    this.file = file;
    this.queue = new BoundedObservationQueue("jsonl", (batch) => this.writeBatch(batch), options);
  }

  write(observation: AgentObservation): void {
    this.queue.push(observation);
  }

  get dropped(): number {
    return this.queue.dropped;
  }

  /** Observations waiting to be written (callers may use it for back-pressure). */
  get queued(): number {
    return this.queue.queued;
  }

  flush(): Promise<void> {
    return this.queue.flush();
  }

  /**
   * Back-pressure: resolves once the queue is at most half full. Await it between bursts (for
   * example after each run) and a shared sink under load waits instead of dropping.
   */
  drain(): Promise<void> {
    return this.queue.waitForRoom();
  }

  attachReporting(events: EventSink, onError: (error: unknown) => void): () => void {
    return this.queue.addReporter(events, onError);
  }

  /** Flush, then close the file (a later write reopens it). */
  async close(): Promise<void> {
    await this.queue.flush();
    const handle = this.handle;
    this.handle = undefined;
    await (await handle)?.close();
  }

  private async writeBatch(batch: AgentObservation[]): Promise<void> {
    let text = "";
    for (const observation of batch) text += `${JSON.stringify(observation)}\n`;
    try {
      this.handle ??= (async () => {
        mkdirSync(dirname(this.file), { recursive: true });
        return open(this.file, "a");
      })();
      await (await this.handle).write(text, null, "utf8");
    } catch (error) {
      const failed = this.handle;
      this.handle = undefined;
      // A handle that opened but could not be written to is closed here, not left to the GC.
      await failed?.then((handle) => handle.close()).catch(() => {});
      throw new TinyAgentsError("storage", `could not append to ${this.file}; check the path is writable`, {
        cause: error,
        details: { file: this.file },
      });
    }
  }
}
