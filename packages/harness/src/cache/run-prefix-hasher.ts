import { type Message, type ModelRequest, TinyAgentsError, type ToolSchema } from "@tinyagents/inference";
import { PrefixStream } from "./prefix-stream.js";

/**
 * Incremental prompt fingerprints for the requests one run's loop builds. The loop lays every
 * request out as `system` (the harness instructions) -> `tools` -> `history` (the transcript) ->
 * `volatile`; the transcript only grows, so the canonical prefix stream (`PrefixStream`) of turn
 * N+1 is the stream of turn N plus the messages appended since. This keeps the running stream
 * and extends it: O(new messages) per fingerprint, O(1) amortized per turn in transcript length.
 *
 * Produces exactly `promptFingerprint(request)` for the requests the loop builds. It notices a
 * transcript that was rewritten instead of appended to (an earlier length, or a different last
 * message than the one it hashed) and starts over. Messages are trusted not to be mutated in
 * place once appended (see `messageDigest`).
 */
export class RunPrefixHasher {
  private head: PrefixStream | undefined;
  private headInstructions: string | undefined;
  private headTools: readonly ToolSchema[] | undefined;
  private running: PrefixStream | undefined;
  private count = 0;
  private last: Message | undefined;

  /**
   * The fingerprint of a loop request whose system segment is `system` (built from the
   * instructions text `instructions`), whose tool list is `tools`, and whose history is the first
   * `count` messages of `transcript`.
   */
  fingerprint(
    instructions: string | undefined,
    system: Message | undefined,
    tools: readonly ToolSchema[] | undefined,
    transcript: readonly Message[],
    count: number,
  ): string {
    if (this.head === undefined || this.headInstructions !== instructions || this.headTools !== tools) {
      const head = PrefixStream.start();
      if (system !== undefined) head.segment("system", "system").message(system);
      if (tools !== undefined) head.tools(tools);
      this.head = head;
      this.headInstructions = instructions;
      this.headTools = tools;
      this.running = undefined;
    }
    if (count === 0) return this.head.digest();
    const rewritten =
      this.running === undefined ||
      count < this.count ||
      (this.count > 0 && transcript[this.count - 1] !== this.last);
    if (rewritten) {
      this.running = this.head.copy().segment("history", "history");
      this.count = 0;
    }
    const running = this.running as PrefixStream;
    for (let i = this.count; i < count; i++) running.message(transcript[i] as Message);
    this.count = count;
    this.last = transcript[count - 1];
    return running.digest();
  }
}

/**
 * Give `request` a `promptFingerprint` that is computed on first read (then stored as a plain
 * data property) and can be overwritten. Reading it costs O(messages appended since the last
 * read); never reading it costs a few hundred nanoseconds — the loop's hot path stays free when
 * nobody looks. The property is enumerable, so `JSON.stringify`, `structuredClone` and spreads see
 * the value. The request stays a plain object with no extra visible keys (the computation is
 * held in a private field, and the accessor descriptor is shared by all requests).
 */
export function defineLazyFingerprint(request: ModelRequest, compute: () => string): void {
  new LazyFingerprint(request, compute);
  Object.defineProperty(request, "promptFingerprint", LAZY_DESCRIPTOR);
}

/** Returns the object it is given, so a subclass can attach a private field to any object. */
class Stamp {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: attaches the private field below to `target`.
    return target as Stamp;
  }
}

/** Holds the pending computation of a request's fingerprint, invisibly (a private field). */
class LazyFingerprint extends Stamp {
  #compute: () => string;

  constructor(target: object, compute: () => string) {
    super(target);
    this.#compute = compute;
  }

  static compute(target: object): string {
    if (!(#compute in target)) {
      throw new TinyAgentsError(
        "internal",
        "a lazy promptFingerprint accessor was copied onto another object; copy the value (request.promptFingerprint) instead",
      );
    }
    return (target as LazyFingerprint).#compute();
  }
}

const LAZY_DESCRIPTOR: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: ModelRequest): string {
    const value = LazyFingerprint.compute(this);
    setData(this, value);
    return value;
  },
  set(this: ModelRequest, value: string) {
    setData(this, value);
  },
};

function setData(request: ModelRequest, value: string): void {
  Object.defineProperty(request, "promptFingerprint", {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
