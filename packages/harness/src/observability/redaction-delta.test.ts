/**
 * The per-delta fast path of `RedactingSink` (`DeltaRedaction`) must produce exactly what the full
 * walk (`Redactor.redact`) produces — same values, same key order, same object when nothing
 * changed — for every record, under every redaction option; it only may decline (`undefined`).
 */
import { type JsonValue, registerSecrets } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { seededRandom, testSeed } from "../../../../test/support/seeded-random.js";
import type { AgentObservation } from "./agent-observation.js";
import { RedactingSink } from "./redacting-sink.js";
import { type RedactionOptions, Redactor } from "./redaction.js";
import { DeltaRedaction } from "./redaction-delta.js";

const OPENAI = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789";
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
const REGISTERED = "reg-cred-5150"; // no default shape: only the registry catches it

const TEXTS = [
  "ab",
  "",
  " the",
  "Hello, world! How are you today?",
  `key ${OPENAI} here`,
  "sk-proj-AbCd", // the first half of a key streamed in two deltas
  "EfGhIjKlMnOpQrStUvWx",
  "Authorization: Bearer abc.DEF-123_xyz",
  "secret=abcd",
  "secret=abc",
  `token ${JWT}`,
  `see ${REGISTERED}!`,
  "pin42 and 1234-5678",
  '{"api_key": "zzzz9999"}',
];
const RUN_IDS = ["run-1", "run-2", "secret=hunter22", `run-${OPENAI}`, "pin07", `r-${REGISTERED}`];
const CALL_IDS = ["run-1-call-1", "call-2", "password:letmein", `c-${JWT}`, "pin11"];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

/** A delta record as `EventSink.emitDelta` builds it, with the shape varied as real records vary. */
function deltaRecord(next: () => number, offset: number): AgentObservation {
  const runId = pick(next, RUN_IDS);
  const rootRunId = next() < 0.7 ? runId : pick(next, RUN_IDS);
  const callId = pick(next, CALL_IDS);
  const text = pick(next, TEXTS);
  const kind = Math.floor(next() * 4);
  const event: Record<string, JsonValue> =
    kind === 0
      ? { type: "model.text_delta", callId, text }
      : kind === 1
        ? { type: "model.reasoning_delta", callId, text, signature: pick(next, TEXTS) }
        : kind === 2
          ? { type: "model.redacted_reasoning", callId, data: text }
          : {
              type: "model.tool_call_delta",
              callId,
              index: offset % 3,
              id: pick(next, CALL_IDS),
              name: "search",
              argumentsDelta: text,
            };
  if (kind < 2 && next() < 0.3) event.deltas = 1 + Math.floor(next() * 9);
  const record: Record<string, JsonValue> = {
    id: `${rootRunId}-evt-${offset}`,
    offset,
    ts: 1_700_000_000_000 + offset,
    runId,
    rootRunId,
    depth: next() < 0.8 ? 0 : 1,
    event,
  };
  if (next() < 0.3) record.parentRunId = pick(next, RUN_IDS);
  if (next() < 0.2)
    record.graphNode = { graphId: pick(next, RUN_IDS), node: "n", call: "agent", token: "abc" };
  return record as unknown as AgentObservation;
}

/** Shapes the fast path must decline (or handle identically): the walk is the reference either way. */
function oddRecord(next: () => number, offset: number): AgentObservation {
  const base = deltaRecord(next, offset) as unknown as Record<string, JsonValue>;
  const event = base.event as Record<string, JsonValue>;
  switch (Math.floor(next() * 6)) {
    case 0:
      event.text = { nested: pick(next, TEXTS), apiKey: "x" };
      break;
    case 1:
      event.apiKey = "plain-value";
      break;
    case 2:
      base.extra = [pick(next, TEXTS)];
      break;
    case 3:
      event.type = "tool.started";
      break;
    case 4:
      base.depth = "0";
      break;
    default:
      event.text = 42;
  }
  return base as unknown as AgentObservation;
}

const OPTIONS: [string, RedactionOptions][] = [
  ["defaults", {}],
  ["custom patterns", { patterns: [/\bpin\d{2}\b/g, /\b\d{4}-\d{4}\b/g] }],
  ["custom replacement", { replacement: "***" }],
  ["no defaults", { defaults: false, patterns: [/ab/g] }],
  ["a custom field on a delta key (no fast path)", { fields: ["text"] }],
  ["a custom field on an envelope key (no fast path)", { fields: ["call_id", "run-id"] }],
  ["a custom unrelated field", { fields: ["ssn"] }],
];

function sameAsWalk(redactor: Redactor, record: AgentObservation, got: AgentObservation): void {
  const walked = redactor.redact(record as unknown as JsonValue) as unknown as AgentObservation;
  expect(JSON.stringify(got)).toBe(JSON.stringify(walked)); // values and key order
  expect(got === record).toBe(walked === record); // copy-on-write: the same object when clean
  expect(got.event === record.event).toBe(walked.event === record.event);
}

describe("DeltaRedaction (the RedactingSink's per-delta fast path)", () => {
  registerSecrets([REGISTERED]);

  it.each(OPTIONS)("matches the full walk on generated delta records: %s", (_name, options) => {
    const redactor = new Redactor(options);
    const fast = new DeltaRedaction(redactor);
    const written: AgentObservation[] = [];
    const sink = new RedactingSink({ write: (o) => written.push(o) }, redactor);
    const next = seededRandom(testSeed(21));
    let taken = 0;
    for (let offset = 0; offset < 3000; offset++) {
      const record = offset % 5 === 4 ? oddRecord(next, offset) : deltaRecord(next, offset);
      const got = fast.redact(record);
      if (got !== undefined) {
        taken++;
        sameAsWalk(redactor, record, got);
      }
      sink.write(record);
      sameAsWalk(redactor, record, written[written.length - 1] as AgentObservation);
    }
    const declinesAll = options.fields?.some((f) => f !== "ssn") === true;
    // Not a vacuous comparison: the fast path took every well-formed delta record it could.
    expect(taken).toBe(declinesAll ? 0 : 2400);
  });

  it("never lets a secret through on the fast path", () => {
    const fast = new DeltaRedaction(new Redactor());
    const record = {
      id: "run-9-evt-3",
      offset: 3,
      ts: 1,
      runId: `run-${OPENAI}`,
      rootRunId: "run-9",
      depth: 0,
      event: { type: "model.text_delta", callId: "secret=hunter22", text: `use ${REGISTERED} and ${JWT}` },
    } as unknown as AgentObservation;
    expect(JSON.stringify(fast.redact(record))).toBe(
      JSON.stringify({
        id: "run-9-evt-3",
        offset: 3,
        ts: 1,
        runId: "run-[REDACTED]",
        rootRunId: "run-9",
        depth: 0,
        event: {
          type: "model.text_delta",
          callId: "secret=[REDACTED]",
          text: "use [REDACTED] and [REDACTED]",
        },
      }),
    );
  });

  // The run and call ids it reuses from the previous record are valid only for the registered
  // credentials they were checked under.
  it("checks a repeated run id again once a new model credential is registered", () => {
    const fast = new DeltaRedaction(new Redactor());
    const record = (offset: number) =>
      ({
        id: `run-77-evt-${offset}`,
        offset,
        ts: 1,
        runId: "run-zz-fresh-cred-31337",
        rootRunId: "run-77",
        depth: 0,
        event: { type: "model.text_delta", callId: "call-zz-fresh-cred-31337", text: "ab" },
      }) as unknown as AgentObservation;
    const first = record(0);
    expect(fast.redact(first)).toBe(first);
    registerSecrets(["fresh-cred-31337"]);
    const second = fast.redact(record(1)) as unknown as { runId: string; event: { callId: string } };
    expect(second.runId).toBe("run-zz-[REDACTED]");
    expect(second.event.callId).toBe("call-zz-[REDACTED]");
  });

  describe("cleanDeltaText (the DeltaLane's check)", () => {
    const STREAMS = ["run-1", "secret=hunter22", "sk-abcd", `r-${REGISTERED}`, "pin07", "run-2"];
    /** A delta record as an EventSink of stream `streamId` builds it: id = `${streamId}-evt-${offset}`. */
    function sinkRecord(next: () => number, streamId: string, offset: number): AgentObservation {
      const record = deltaRecord(next, offset) as unknown as Record<string, JsonValue>;
      record.id = `${streamId}-evt-${offset}`;
      if (next() < 0.5) record.rootRunId = streamId;
      return record as unknown as AgentObservation;
    }
    const OFFSETS = [0, 7, 42, 999, 12_345, 999_999, 1_000_000, 4_321_987, 123_456_789_012];

    it.each(OPTIONS)(
      "returns the text only when redacting the record would change nothing else: %s",
      (_name, options) => {
        const redactor = new Redactor(options);
        const fast = new DeltaRedaction(redactor);
        const next = seededRandom(testSeed(40));
        let taken = 0;
        for (let i = 0; i < 3000; i++) {
          const streamId = pick(next, STREAMS);
          const offset = pick(next, OFFSETS) + (i % 3);
          const record = sinkRecord(next, streamId, offset);
          const text = fast.cleanDeltaText(record, `${streamId}-evt-`);
          if (text === undefined) continue;
          taken++;
          const walked = redactor.redact(record as unknown as JsonValue);
          expect(JSON.stringify({ ...record, event: { ...record.event, text } })).toBe(
            JSON.stringify(walked),
          );
        }
        const declinesAll =
          options.fields?.some((f) => f !== "ssn") === true || options.patterns !== undefined;
        if (declinesAll) expect(taken).toBe(0);
        else expect(taken).toBeGreaterThan(50); // most generated records carry a secret-shaped id somewhere
      },
    );

    const plain = (streamId: string, offset: number, text = "ab") =>
      ({
        id: `${streamId}-evt-${offset}`,
        offset,
        ts: 1,
        runId: "run-5",
        rootRunId: "run-5",
        depth: 0,
        event: { type: "model.text_delta", callId: "call-1", text },
      }) as unknown as AgentObservation;

    it("takes the id's verdict from its digit count: a stream id that becomes a key at 7 digits", () => {
      const fast = new DeltaRedaction(new Redactor());
      // "sk-" + "abcd-evt-" (9) + 7 digits is the 16 characters of an OpenAI-style key.
      expect(fast.cleanDeltaText(plain("sk-abcd", 999_999), "sk-abcd-evt-")).toBe("ab");
      expect(fast.cleanDeltaText(plain("sk-abcd", 1_000_000), "sk-abcd-evt-")).toBeUndefined();
      expect(new Redactor().redactString("sk-abcd-evt-1000000")).toBe("[REDACTED]");
      // Back to fewer digits: clean again.
      expect(fast.cleanDeltaText(plain("sk-abcd", 5), "sk-abcd-evt-")).toBe("ab");
    });

    it("redacts the text, and declines for a secret-shaped run, call or stream id", () => {
      const fast = new DeltaRedaction(new Redactor());
      expect(fast.cleanDeltaText(plain("run-5", 3, `key ${OPENAI}`), "run-5-evt-")).toBe("key [REDACTED]");
      expect(fast.cleanDeltaText(plain("run-5", 3, `${REGISTERED}`), "run-5-evt-")).toBe("[REDACTED]");
      const secretRun = { ...plain("run-5", 4), runId: `run-${OPENAI}` } as AgentObservation;
      expect(fast.cleanDeltaText(secretRun, "run-5-evt-")).toBeUndefined();
      const secretCall = plain("run-5", 5) as unknown as { event: { callId: string } };
      secretCall.event.callId = "password:letmein";
      expect(fast.cleanDeltaText(secretCall as unknown as AgentObservation, "run-5-evt-")).toBeUndefined();
      expect(fast.cleanDeltaText(plain("secret=hunter22", 6), "secret=hunter22-evt-")).toBeUndefined();
      const withNode = { ...plain("run-5", 7), graphNode: { graphId: "g", node: "n" } } as AgentObservation;
      expect(fast.cleanDeltaText(withNode, "run-5-evt-")).toBeUndefined();
      const signed = plain("run-5", 8) as unknown as { event: Record<string, unknown> };
      signed.event = { type: "model.reasoning_delta", callId: "call-1", text: "t", signature: "s" };
      expect(fast.cleanDeltaText(signed as unknown as AgentObservation, "run-5-evt-")).toBeUndefined();
    });

    it("declines an id prefix that is empty or ends with a digit (the digit count is then not the id's)", () => {
      const fast = new DeltaRedaction(new Redactor());
      expect(fast.cleanDeltaText(plain("run-5", 7), "run-5-evt-")).toBe("ab");
      // Same lengths as a prefix plus the offset, but not the shape the verdict relies on.
      expect(
        fast.cleanDeltaText({ ...plain("x", 7), id: "run-57" } as AgentObservation, "run-5"),
      ).toBeUndefined();
      expect(fast.cleanDeltaText({ ...plain("x", 7), id: "7" } as AgentObservation, "")).toBeUndefined();
    });

    it("declines every id of a stream whose ids a registered credential could be part of", () => {
      const fast = new DeltaRedaction(new Redactor());
      expect(fast.cleanDeltaText(plain("zq", 5), "zq-evt-")).toBe("ab");
      // A credential ending in digits, preceded by the end of the ids' prefix: "zq-evt-1234567".
      registerSecrets(["q-evt-1234"]);
      expect(fast.cleanDeltaText(plain("zq", 5), "zq-evt-")).toBeUndefined();
      expect(new Redactor().redactString("zq-evt-12345")).toBe("z[REDACTED]5");
      // Another stream's ids cannot hold it: still taken.
      expect(fast.cleanDeltaText(plain("run-5", 12_345), "run-5-evt-")).toBe("ab");
      // An all-digit credential could sit in any id's digits.
      registerSecrets(["8675309"]);
      expect(fast.cleanDeltaText(plain("run-5", 12_345), "run-5-evt-")).toBeUndefined();
    });
  });
});
