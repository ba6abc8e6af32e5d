import type { AgentObservation } from "./agent-observation.js";
import type { ObservationSink } from "./sink.js";

/**
 * Writes every observation to several sinks, in order. A sink that throws is reported to
 * `onError` and never stops the others; `flush`/`close` wait for all of them.
 */
export class FanOutSink implements ObservationSink {
  private readonly sinks: readonly ObservationSink[];
  private readonly onError: (error: unknown, sink: ObservationSink) => void;

  constructor(
    sinks: readonly ObservationSink[],
    options: { onError?: (error: unknown, sink: ObservationSink) => void } = {},
  ) {
    this.sinks = [...sinks];
    this.onError = options.onError ?? (() => {});
  }

  write(observation: AgentObservation): void {
    for (const sink of this.sinks) {
      try {
        sink.write(observation);
      } catch (error) {
        this.onError(error, sink);
      }
    }
  }

  async flush(): Promise<void> {
    await Promise.all(this.sinks.map((sink) => sink.flush?.()));
  }

  async close(): Promise<void> {
    await Promise.all(this.sinks.map((sink) => sink.close?.()));
  }
}
