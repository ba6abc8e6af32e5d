import {
  type ChatModel,
  collectStream,
  type ModelCallOptions,
  type ModelProfile,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  systemClock,
  TinyAgentsError,
  type Usage,
} from "@tinyagents/inference";
import { sleepOrAbort, throwIfAborted } from "./abort.js";

/** Options of a {@link StreamingMock}. */
export interface StreamingMockOptions {
  /** `modelId` (default `"streaming-mock"`). */
  modelId?: string;
  profile?: ModelProfile;
  /**
   * Wait this long before each item, through `options.clock` (else the system clock): with a
   * `DeterministicClock` the stream stays instant but virtual time moves, and an abort between
   * items is observed.
   */
  itemDelayMs?: number;
}

/**
 * A {@link ChatModel} that plays scripted stream items verbatim: call N plays script N (strict
 * FIFO; a `validation` error when exhausted). Items are yielded as copies, so an `error` item
 * reaches the consumer as data (`invoke` turns it into a `ProviderError`, like a real adapter).
 *
 * `invoke` accumulates the same items with the inference layer's `collectStream`. An aborted
 * `options.signal` (before the call or between items) throws a `cancelled` `TinyAgentsError`.
 */
export class StreamingMock implements ChatModel {
  readonly provider = "streaming-mock";
  readonly modelId: string;
  readonly profile?: ModelProfile;
  readonly cacheIdentity: string;
  /** Deep copies of the requests received, in order. */
  readonly requests: ModelRequest[] = [];
  private readonly scripts: ModelStreamItem[][];
  private readonly itemDelayMs: number;
  private calls = 0;

  constructor(scripts: readonly (readonly ModelStreamItem[])[], options: StreamingMockOptions = {}) {
    this.scripts = scripts.map((items) => [...items]);
    this.modelId = options.modelId ?? "streaming-mock";
    if (options.profile !== undefined) this.profile = options.profile;
    this.itemDelayMs = options.itemDelayMs ?? 0;
    this.cacheIdentity = `streaming-mock:${this.modelId}`;
  }

  /**
   * One call streaming `chunks` as text deltas between a `start` and a `finish` (`stop`), with a
   * `usage` item first when `usage` is given.
   */
  static fromTextChunks(
    chunks: readonly string[],
    options: StreamingMockOptions & { usage?: Usage } = {},
  ): StreamingMock {
    const items: ModelStreamItem[] = [{ type: "start" }];
    for (const text of chunks) items.push({ type: "text_delta", text });
    if (options.usage !== undefined) items.push({ type: "usage", usage: options.usage });
    items.push({ type: "finish", finishReason: "stop" });
    return new StreamingMock([items], options);
  }

  /** How many scripts were started. */
  get callCount(): number {
    return this.calls;
  }

  /** How many scripts are left. */
  get remaining(): number {
    return this.scripts.length;
  }

  /** Throws a `validation` error when scripts were never played. */
  assertConsumed(): void {
    if (this.scripts.length === 0) return;
    throw new TinyAgentsError(
      "validation",
      `StreamingMock "${this.modelId}": ${this.scripts.length} scripted stream(s) left unconsumed after ${this.calls} call(s)`,
      { details: { model: this.modelId, remaining: this.scripts.length, calls: this.calls } },
    );
  }

  /** Plays the next script. */
  async *stream(
    request: ModelRequest,
    options?: ModelCallOptions,
  ): AsyncGenerator<ModelStreamItem, void, undefined> {
    const signal = options?.signal;
    const what = `StreamingMock "${this.modelId}" stream`;
    throwIfAborted(signal, what);
    this.requests.push(structuredClone(request));
    const items = this.scripts.shift();
    if (items === undefined) {
      throw new TinyAgentsError(
        "validation",
        `StreamingMock "${this.modelId}": scripts exhausted after ${this.calls} call(s); add more streams`,
        { details: { model: this.modelId, calls: this.calls } },
      );
    }
    this.calls++;
    const clock = options?.clock ?? systemClock;
    for (const item of items) {
      if (this.itemDelayMs > 0)
        await sleepOrAbort((ms, s) => clock.sleep(ms, s), this.itemDelayMs, signal, what);
      throwIfAborted(signal, what);
      yield structuredClone(item);
    }
  }

  /** Plays the next script and accumulates it into a response. */
  invoke(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    return collectStream(this.stream(request, options), { provider: this.provider, model: this.modelId });
  }
}
