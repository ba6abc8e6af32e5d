import { type JsonValue, registeredSecrets } from "@tinyagents/inference";
import type { AgentObservation } from "./agent-observation.js";
import type { Redactor } from "./redaction.js";
import { SinkIdVerdict } from "./sink-id-verdict.js";

/** The envelope keys of an event record (`EventRecord`); `graphNode` is walked as the full walk would. */
const RECORD_KEYS = [
  "id",
  "offset",
  "ts",
  "runId",
  "parentRunId",
  "rootRunId",
  "depth",
  "graphNode",
  "event",
];
/** The keys of the streamed delta events (`ModelDeltaEvent`, merged or not): strings and numbers only. */
const DELTA_KEYS = [
  "type",
  "callId",
  "text",
  "signature",
  "deltas",
  "data",
  "index",
  "id",
  "name",
  "argumentsDelta",
];

/** Whether `type` is a `ModelDeltaEvent`'s (comparisons: cheaper than a `Set` lookup per delta). */
function isDeltaType(type: unknown): boolean {
  return (
    type === "model.text_delta" ||
    type === "model.reasoning_delta" ||
    type === "model.tool_call_delta" ||
    type === "model.redacted_reasoning"
  );
}

/**
 * The full walk of {@link Redactor.redact}, specialized for the one record shape that comes per
 * streamed delta: an event record whose event is a `model.*_delta` with flat string and number
 * fields. Same output as the walk, same copy-on-write (the same object when nothing changed), for
 * a fraction of the cost: the field-name verdicts of the fixed keys are taken once (if any fixed
 * key is a secret name for this redactor, there is no fast path), strings go through the same
 * `redactString`, and the run's repeated strings (run ids, event type, call id) are reused from the
 * previous record while the process's registered secrets are unchanged (`redactString` is a pure
 * function of the string, the redactor and that list). Anything else (another event, an unknown
 * key, a value of an unexpected type) returns `undefined`: the caller walks it in full.
 */
export class DeltaRedaction {
  private readonly redactor: Redactor;
  private readonly enabled: boolean;
  // The last repeated strings and what they redacted to, valid for `under`.
  private under: readonly string[] | undefined;
  private lastRun: string | undefined;
  private lastRunOut = "";
  private lastRoot: string | undefined;
  private lastRootOut = "";
  private lastParent: string | undefined;
  private lastParentOut = "";
  private lastType: string | undefined;
  private lastTypeOut = "";
  private lastCall: string | undefined;
  private lastCallOut = "";
  // The id verdict for the records of one event sink (see `SinkIdVerdict`).
  private readonly ids: SinkIdVerdict;

  constructor(redactor: Redactor) {
    this.redactor = redactor;
    this.ids = new SinkIdVerdict(redactor);
    this.enabled = ![...RECORD_KEYS, ...DELTA_KEYS].some((key) => redactor.isSecretField(key));
  }

  /** The redacted record, or `undefined` when it is not a delta record of the known shape. */
  redact(record: AgentObservation): AgentObservation | undefined {
    if (!this.enabled) return undefined;
    const event = record.event as unknown as Record<string, JsonValue | undefined>;
    if (typeof event !== "object" || event === null || !isDeltaType(event.type)) return undefined;
    this.secrets();
    const nextEvent = this.redactEvent(event);
    if (nextEvent === undefined) return undefined;
    const source = record as unknown as Record<string, JsonValue | undefined>;
    let copy: Record<string, JsonValue | undefined> | undefined;
    // In the record's own key order, as the walk goes (the copy keeps that order).
    for (const key in source) {
      const item = source[key];
      let next: JsonValue | undefined;
      switch (key) {
        case "offset":
        case "ts":
        case "depth":
          if (typeof item !== "number") return undefined;
          continue;
        case "id":
          if (typeof item !== "string") return undefined;
          next = this.redactor.redactString(item);
          break;
        case "runId":
          if (typeof item !== "string") return undefined;
          if (item !== this.lastRun) {
            this.lastRunOut = this.redactor.redactString(item);
            this.lastRun = item;
          }
          next = this.lastRunOut;
          break;
        case "rootRunId":
          if (typeof item !== "string") return undefined;
          if (item !== this.lastRoot) {
            this.lastRootOut = this.redactor.redactString(item);
            this.lastRoot = item;
          }
          next = this.lastRootOut;
          break;
        case "parentRunId":
          if (typeof item !== "string") return undefined;
          if (item !== this.lastParent) {
            this.lastParentOut = this.redactor.redactString(item);
            this.lastParent = item;
          }
          next = this.lastParentOut;
          break;
        case "graphNode":
          // What the walk does with a non-secret key's value.
          if (item === undefined) return undefined;
          next = this.redactor.redact(item);
          break;
        case "event":
          next = nextEvent as JsonValue;
          break;
        default:
          return undefined;
      }
      if (next !== item) {
        copy ??= { ...source };
        copy[key] = next;
      }
    }
    return (copy ?? record) as unknown as AgentObservation;
  }

  /**
   * For a streamed text or reasoning delta (`model.text_delta`, `model.reasoning_delta` without
   * a signature) whose redaction changes nothing but, at most, its `text`: the redacted text,
   * which is then all that differs between the record and its redacted copy. The id, run ids,
   * call id and event type must come out unchanged, the record carry no graph node, its offset,
   * timestamp and depth be numbers. Anything else returns `undefined` (redact the whole record).
   * Keys beyond these are not looked at: the caller reads only these and the text.
   *
   * `idPrefix` is the `${streamId}-evt-` of the `EventSink` the record comes from, whose ids are
   * that prefix and the record's offset: the id's verdict is then taken from the prefix and the
   * offset's digit count (see `SinkIdVerdict`) without reading the id's characters.
   */
  cleanDeltaText(record: AgentObservation, idPrefix: string): string | undefined {
    if (!this.enabled) return undefined;
    const event = record.event as unknown as Record<string, JsonValue | undefined>;
    const type = event.type;
    if (type !== "model.text_delta" && (type !== "model.reasoning_delta" || event.signature !== undefined))
      return undefined;
    const { text, callId } = event;
    const { id, runId, rootRunId, parentRunId } = record;
    if (
      typeof text !== "string" ||
      typeof callId !== "string" ||
      typeof id !== "string" ||
      typeof runId !== "string" ||
      typeof rootRunId !== "string" ||
      typeof record.offset !== "number" ||
      typeof record.ts !== "number" ||
      typeof record.depth !== "number" ||
      record.graphNode !== undefined
    )
      return undefined;
    const secrets = this.secrets();
    if (type !== this.lastType) {
      this.lastTypeOut = this.redactor.redactString(type);
      this.lastType = type;
    }
    if (callId !== this.lastCall) {
      this.lastCallOut = this.redactor.redactString(callId);
      this.lastCall = callId;
    }
    if (runId !== this.lastRun) {
      this.lastRunOut = this.redactor.redactString(runId);
      this.lastRun = runId;
    }
    if (rootRunId !== this.lastRoot) {
      this.lastRootOut = this.redactor.redactString(rootRunId);
      this.lastRoot = rootRunId;
    }
    if (parentRunId !== undefined) {
      if (typeof parentRunId !== "string") return undefined;
      if (parentRunId !== this.lastParent) {
        this.lastParentOut = this.redactor.redactString(parentRunId);
        this.lastParent = parentRunId;
      }
      if (this.lastParentOut !== parentRunId) return undefined;
    }
    if (
      this.lastTypeOut !== type ||
      this.lastCallOut !== callId ||
      this.lastRunOut !== runId ||
      this.lastRootOut !== rootRunId ||
      !this.ids.isClean(record.offset, id.length, idPrefix, secrets)
    )
      return undefined;
    return this.redactor.redactString(text);
  }

  /** The registered credentials; the memos of repeated strings hold only under the same list. */
  private secrets(): readonly string[] {
    const secrets = registeredSecrets();
    if (this.under !== secrets) {
      this.under = secrets;
      this.lastRun = this.lastRoot = this.lastParent = this.lastType = this.lastCall = undefined;
      this.ids.forget();
    }
    return secrets;
  }

  private redactEvent(
    event: Record<string, JsonValue | undefined>,
  ): Record<string, JsonValue | undefined> | undefined {
    let copy: Record<string, JsonValue | undefined> | undefined;
    for (const key in event) {
      const item = event[key];
      let next: string;
      switch (key) {
        case "deltas":
        case "index":
          if (typeof item !== "number") return undefined;
          continue;
        case "type":
          if (typeof item !== "string") return undefined;
          if (item !== this.lastType) {
            this.lastTypeOut = this.redactor.redactString(item);
            this.lastType = item;
          }
          next = this.lastTypeOut;
          break;
        case "callId":
          if (typeof item !== "string") return undefined;
          if (item !== this.lastCall) {
            this.lastCallOut = this.redactor.redactString(item);
            this.lastCall = item;
          }
          next = this.lastCallOut;
          break;
        case "text":
        case "signature":
        case "data":
        case "id":
        case "name":
        case "argumentsDelta":
          if (typeof item !== "string") return undefined;
          next = this.redactor.redactString(item);
          break;
        default:
          return undefined;
      }
      if (next !== item) {
        copy ??= { ...event };
        copy[key] = next;
      }
    }
    return copy ?? event;
  }
}
