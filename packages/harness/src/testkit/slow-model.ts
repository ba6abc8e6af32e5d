import {
  assistant,
  type ChatModel,
  type ModelCallOptions,
  type ModelProfile,
  type ModelRequest,
  type ModelResponse,
  systemClock,
} from "@tinyagents/inference";
import { sleepOrAbort } from "./abort.js";

/** Options of a {@link SlowModel}. */
export interface SlowModelOptions {
  /** How long every call takes, in clock milliseconds. */
  delayMs: number;
  /** The answer: final text (default `"done"`) or a full response (returned as a copy). */
  reply?: string | ModelResponse;
  /** `modelId` (default `"slow"`). */
  modelId?: string;
  profile?: ModelProfile;
}

/**
 * A {@link ChatModel} that answers `reply` after `delayMs`, sleeping through `options.clock`
 * (else the system clock) with the call's signal: the tool for timeout, deadline and
 * cancellation tests. With a `DeterministicClock` the wait is virtual, so it is instant unless
 * something (a deadline race, an abort) gets there first. An abort rejects with a `cancelled`
 * `TinyAgentsError` (or the harness's own error when that is the abort reason).
 */
export class SlowModel implements ChatModel {
  readonly provider = "slow";
  readonly modelId: string;
  readonly profile?: ModelProfile;
  readonly cacheIdentity: string;
  /** Deep copies of the requests received, in order. */
  readonly requests: ModelRequest[] = [];
  /** Calls that completed (were not aborted). */
  completed = 0;
  private readonly delayMs: number;
  private readonly reply: string | ModelResponse;

  constructor(options: SlowModelOptions) {
    this.delayMs = options.delayMs;
    this.reply = options.reply ?? "done";
    this.modelId = options.modelId ?? "slow";
    if (options.profile !== undefined) this.profile = options.profile;
    this.cacheIdentity = `slow:${this.modelId}`;
  }

  /** How many calls were made (aborted ones included). */
  get callCount(): number {
    return this.requests.length;
  }

  /** Waits `delayMs`, then answers. */
  async invoke(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    this.requests.push(structuredClone(request));
    const clock = options?.clock ?? systemClock;
    await sleepOrAbort(
      (ms, signal) => clock.sleep(ms, signal),
      this.delayMs,
      options?.signal,
      `SlowModel "${this.modelId}" call`,
    );
    this.completed++;
    return typeof this.reply === "string"
      ? { message: assistant(this.reply), finishReason: "stop" }
      : structuredClone(this.reply);
  }
}
