import type { Message } from "@tinyagents/inference";

/**
 * Thread-scoped conversation storage: the trait boundary for short-term memory backends.
 * `append` adds messages without touching what is stored, so a failed save never destroys
 * existing history.
 */
export interface ChatHistory {
  load(threadId: string): Promise<Message[]>;
  append(threadId: string, messages: Message[]): Promise<void>;
  clear(threadId: string): Promise<void>;
}

/** In-memory ChatHistory (tests, single process). Messages are copied in and out. */
export class InMemoryChatHistory implements ChatHistory {
  private readonly threads = new Map<string, Message[]>();

  async load(threadId: string): Promise<Message[]> {
    return structuredClone(this.threads.get(threadId) ?? []);
  }

  async append(threadId: string, messages: Message[]): Promise<void> {
    const existing = this.threads.get(threadId) ?? [];
    this.threads.set(threadId, existing.concat(structuredClone(messages)));
  }

  async clear(threadId: string): Promise<void> {
    this.threads.delete(threadId);
  }
}
