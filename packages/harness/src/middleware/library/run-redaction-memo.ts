import type { ContentBlock, Message } from "@tinyagents/inference";
import type { TextRedactor } from "./text-redactor.js";

/**
 * What the redaction middleware remembers for ONE run, dropped with it: the previous request's
 * messages and what was sent for each (by position), the redacted copy of every message it saw,
 * and the text blocks found clean by `afterTool` / `afterModel`. A call whose history is the
 * previous call's plus new messages compares each earlier message by identity and scans only
 * the new ones. Per run rather than in one table shared by every run: entries of a long-lived
 * `WeakMap`, set for every message of every run, cost the garbage collector far more than the
 * look-ups save (about 0.6-0.9 µs per entry here, against 0.1 µs for a table that dies with the
 * run). The price: a new run of a thread scans the thread's earlier messages once, at its first
 * call. The copies by message are kept only from the first call whose history is not the previous
 * one's plus new messages: an append-only history needs no table.
 */
export class RunRedactionMemo {
  private readonly redactor: TextRedactor;
  private readonly given: Message[] = [];
  private readonly sent: Message[] = [];
  /**
   * Redacted copies by message, for a history that shifted (trimmed, summarized, reordered): set
   * up at the first such call, from the previous request's messages.
   */
  private copies: Map<Message, Message> | undefined;
  /** Text blocks found clean, with the text they had then (see `TextRedactor.blocks`). */
  private readonly cleanBlocks = new Map<ContentBlock, string>();

  constructor(redactor: TextRedactor) {
    this.redactor = redactor;
  }

  /** The messages of a request as they must be sent: a new array, or `undefined` when none changes. */
  messages(list: readonly Message[]): Message[] | undefined {
    const { given, sent } = this;
    const before = given.length;
    let messages: Message[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const message = list[i] as Message;
      let redacted: Message;
      if (given[i] === message) redacted = sent[i] as Message;
      else {
        if (i < before && this.copies === undefined) this.shifted();
        redacted = this.copy(message);
        given[i] = message;
        sent[i] = redacted;
      }
      if (redacted === message) continue;
      messages ??= list.slice();
      messages[i] = redacted;
    }
    if (given.length > list.length) {
      given.length = list.length;
      sent.length = list.length;
    }
    return messages;
  }

  /** `TextRedactor.blocks`, remembering the blocks found clean for this run's next requests. */
  blocks(content: ContentBlock[]): ContentBlock[] {
    return this.redactor.blocks(content, this.cleanBlocks);
  }

  /** The history is no longer append-only: remember copies by message from now on. */
  private shifted(): void {
    const copies = new Map<Message, Message>();
    for (let i = 0; i < this.given.length; i++) copies.set(this.given[i] as Message, this.sent[i] as Message);
    this.copies = copies;
  }

  private copy(message: Message): Message {
    const copies = this.copies;
    if (copies === undefined) return this.redactor.message(message, this.cleanBlocks);
    let copy = copies.get(message);
    if (copy === undefined) {
      copy = this.redactor.message(message, this.cleanBlocks);
      copies.set(message, copy);
    }
    return copy;
  }
}
