import { type JsonValue, type Message, validationError } from "@tinyagents/inference";
import type { AppendLog } from "../store/append-log.js";
import type { KeyValueStore } from "../store/key-value-store.js";
import { KeyedMutex } from "../store/keyed-mutex.js";
import { encodeStoreName } from "../store/store-names.js";
import type { ChatHistory } from "./chat-history.js";

/** Where a {@link StoreChatHistory} keeps threads. */
export type StoreChatHistoryBackend =
  /** One append-log stream per thread (`<streamPrefix><encoded thread id>`). Preferred. */
  | { log: AppendLog; streamPrefix?: string }
  /** One key per thread in `namespace` (default `"chat-history"`), rewritten on every append. */
  | { store: KeyValueStore; namespace?: string };

/** An entry of a thread's stream: a batch of messages, or a clear marker. */
type ThreadEntry = { messages: Message[] } | { cleared: true };

const PAGE = 1000;

/**
 * A ChatHistory over any AppendLog or KeyValueStore (in-memory, file, SQLite).
 *
 * Writes to one thread are serialized inside this process (a per-thread promise chain), and
 * `load` waits for writes queued before it, so concurrent runs on one thread never interleave
 * or lose messages and a run always reads its own writes.
 *
 * - AppendLog backend: each `append` is ONE log entry holding the whole batch, so a batch is
 *   stored whole or not at all and batches from concurrent runs never interleave — also across
 *   processes when the log is safe for several writers (SQLite, JSONL on a local disk).
 *   `clear` appends a marker; `load` replays the stream from the last marker (the log is
 *   append-only, so cleared history stays on disk until the stream is deleted).
 * - KeyValueStore backend: a read-modify-write of one value per thread; safe within one
 *   process only.
 */
export class StoreChatHistory implements ChatHistory {
  private readonly backend: StoreChatHistoryBackend;
  private readonly mutex = new KeyedMutex();

  constructor(backend: StoreChatHistoryBackend) {
    if (backend === null || typeof backend !== "object" || !("log" in backend || "store" in backend)) {
      throw validationError("StoreChatHistory needs { log: AppendLog } or { store: KeyValueStore }", {
        field: "backend",
      });
    }
    this.backend = backend;
  }

  async load(threadId: string): Promise<Message[]> {
    checkThread(threadId);
    return this.mutex.run(threadId, async () => {
      const backend = this.backend;
      if ("store" in backend) {
        const stored = await backend.store.get(this.namespace(), encodeStoreName(threadId));
        return Array.isArray(stored) ? (stored as unknown as Message[]) : [];
      }
      const stream = this.stream(threadId);
      let messages: Message[] = [];
      for (let offset = 0; ; ) {
        const page = await backend.log.readFrom(stream, offset, PAGE);
        for (const { value } of page) {
          const entry = value as unknown as ThreadEntry;
          if ("cleared" in entry) messages = [];
          else messages.push(...entry.messages);
        }
        const last = page.at(-1);
        if (last === undefined) break; // an empty page ends the stream (short pages may skip corrupt lines)
        offset = last.offset + 1;
      }
      return messages;
    });
  }

  async append(threadId: string, messages: Message[]): Promise<void> {
    checkThread(threadId);
    if (!Array.isArray(messages)) {
      throw validationError("append(threadId, messages) needs an array of messages", { field: "messages" });
    }
    if (messages.length === 0) return;
    await this.mutex.run(threadId, async () => {
      const backend = this.backend;
      if ("log" in backend) {
        await backend.log.append(this.stream(threadId), { messages } as unknown as JsonValue);
        return;
      }
      const key = encodeStoreName(threadId);
      const stored = await backend.store.get(this.namespace(), key);
      const existing = Array.isArray(stored) ? stored : [];
      await backend.store.put(this.namespace(), key, existing.concat(messages as unknown as JsonValue[]));
    });
  }

  async clear(threadId: string): Promise<void> {
    checkThread(threadId);
    await this.mutex.run(threadId, async () => {
      const backend = this.backend;
      if ("log" in backend) await backend.log.append(this.stream(threadId), { cleared: true });
      else await backend.store.delete(this.namespace(), encodeStoreName(threadId));
    });
  }

  private stream(threadId: string): string {
    const prefix = "log" in this.backend ? (this.backend.streamPrefix ?? "thread-") : "thread-";
    return `${prefix}${encodeStoreName(threadId)}`;
  }

  private namespace(): string {
    return "store" in this.backend ? (this.backend.namespace ?? "chat-history") : "chat-history";
  }
}

function checkThread(threadId: unknown): void {
  if (typeof threadId !== "string" || threadId === "") {
    throw validationError("threadId must be a non-empty string", { field: "threadId" });
  }
}
