import type { JsonValue } from "@tinyagents/inference";
import type { AgentObservation } from "./agent-observation.js";
import type { RawDeltaTexts } from "./raw-delta-texts.js";
import { type RedactionOptions, Redactor } from "./redaction.js";
import { DeltaRedaction } from "./redaction-delta.js";
import type { ObservationSink } from "./sink.js";

/**
 * Scrubs secrets from every observation before passing it on: values of configured and
 * well-known secret field names (`authorization`, `x-api-key`, `apiKey`, `password`, ...) and
 * secret shapes anywhere in a string (`sk-...`, `sk-ant-...`, `Bearer ...`, AWS keys, JWTs, ...),
 * including tool arguments, progress data, error messages and error details. Put it in front of
 * anything that persists or exports observations. Clean observations pass through unchanged
 * (same object); redacted ones are copies, so other listeners still see the original.
 */
export class RedactingSink implements ObservationSink {
  readonly redactor: Redactor;
  private readonly inner: ObservationSink;
  /** The per-delta fast path (same output as the full walk; `undefined` for any other record). */
  private readonly deltas: DeltaRedaction;
  private readonly rawTexts: RawDeltaTexts | undefined;

  /**
   * `rawTexts` (set by `attachObservability` for its journal's delta coalescer): where the raw
   * text of each text or reasoning delta whose text redaction changed is noted.
   */
  constructor(inner: ObservationSink, options: RedactionOptions | Redactor = {}, rawTexts?: RawDeltaTexts) {
    this.inner = inner;
    this.redactor = options instanceof Redactor ? options : new Redactor(options);
    this.deltas = new DeltaRedaction(this.redactor);
    this.rawTexts = rawTexts;
  }

  write(observation: AgentObservation): void {
    const redacted =
      this.deltas.redact(observation) ??
      (this.redactor.redact(observation as unknown as JsonValue) as unknown as AgentObservation);
    if (this.rawTexts !== undefined && redacted !== observation) {
      const event = observation.event;
      if (
        (event.type === "model.text_delta" || event.type === "model.reasoning_delta") &&
        (redacted.event as typeof event).text !== event.text
      )
        this.rawTexts.note(redacted, event.text);
    }
    this.inner.write(redacted);
  }

  flush(): Promise<void> {
    return this.inner.flush?.() ?? Promise.resolve();
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}
