/**
 * Redaction: an API key placed in tool arguments, in a header-like field and in an error
 * message never reaches the JSONL journal (nor a JSONL log file), while the events themselves
 * are still journaled.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, AppendLogEventJournal, attachObservability, EventSink } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { JsonlAppendLog, JsonlSink } from "@tinyagents/harness/node";
import { DeterministicClock, DeterministicIds, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { ProviderError } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const KEYS = {
  openai: "sk-proj-Zq8XwVt5Rr2Nn7Mm4Kk1Jj9Hh6Gg3Ff0",
  anthropic: "sk-ant-api03-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9",
  opaque: "opaque-secret-value-4242", // no known shape: only a field name can catch it
};

let dir: string;
const logs: JsonlAppendLog[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-redaction-"));
});
afterEach(async () => {
  await Promise.all(logs.splice(0).map((log) => log.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe("redaction", () => {
  it("keeps API keys in tool arguments, headers and error messages out of the JSONL journal", async () => {
    const clock = new DeterministicClock();
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            id: "c1",
            name: "call_api",
            arguments: {
              url: "https://api.example.com",
              apiKey: KEYS.opaque,
              headers: { Authorization: `Bearer ${KEYS.openai}`, "x-api-key": KEYS.opaque },
              note: `fallback key ${KEYS.anthropic}`,
            },
          },
        ],
      },
      new ProviderError({
        provider: "test",
        message: `401 Unauthorized: invalid x-api-key ${KEYS.anthropic} (key=${KEYS.openai})`,
        kind: "non_retryable",
        status: 401,
      }),
    ]);
    const harness = new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() })
      .registerModel("m", model)
      .registerTool(
        FakeTool.of("call_api", (_args, ctx) => {
          ctx.progress("calling", { headers: { "X-Api-Key": KEYS.opaque, accept: "json" } });
          throw new Error(`upstream rejected Authorization: Bearer ${KEYS.openai}`);
        }),
      );
    const journalDir = join(dir, "journal");
    const logFile = join(dir, "events.jsonl");
    const events = new EventSink("run-1", { now: () => clock.now() });
    const log = new JsonlAppendLog(journalDir); // the journal's log is ours to close (see afterEach)
    logs.push(log);
    const obs = attachObservability(events, {
      journal: new AppendLogEventJournal(log),
      sinks: [new JsonlSink(logFile)],
    });
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-1" },
      "go",
      {
        events,
      },
    );
    await obs.close();
    expect(outcome.error?.message).toContain(KEYS.anthropic); // the caller still sees the real error

    const files = [...readdirSync(journalDir).map((f) => join(journalDir, f)), logFile];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const key of Object.values(KEYS)) expect(text, `${file} leaks ${key}`).not.toContain(key);
      // The events themselves are there, with the secrets replaced.
      const types = text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).event.type);
      expect(types).toEqual(
        expect.arrayContaining(["tool.started", "tool.progress", "model.failed", "run.failed"]),
      );
      expect(text).toContain("[REDACTED]");
    }
    const journal = readFileSync(join(journalDir, "journal-run-1.jsonl"), "utf8");
    const started = journal
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((r) => r.event.type === "tool.started");
    expect(started.event.arguments).toEqual({
      url: "https://api.example.com",
      apiKey: "[REDACTED]",
      headers: { Authorization: "[REDACTED]", "x-api-key": "[REDACTED]" },
      note: "fallback key [REDACTED]",
    });
  });

  // A model streams a key as several tokens: no single delta matches a secret shape, the merged
  // record (the journal's default "coalesce") holds the whole key unless it is redacted as a whole.
  it("keeps a key streamed across several deltas out of the journal's merged delta record", async () => {
    const log = new JsonlAppendLog(join(dir, "journal"));
    logs.push(log);
    const journal = new AppendLogEventJournal(log);
    const events = new EventSink("run-2");
    const obs = attachObservability(events, { journal });
    const scope = { runId: "run-2", rootRunId: "run-2", depth: 0 };
    const key = KEYS.openai;
    for (const text of ["Your key: ", key.slice(0, 5), key.slice(5, 14), key.slice(14), ". Done."]) {
      events.emit(scope, { type: "model.text_delta", callId: "m1", text });
    }
    events.emit(scope, {
      type: "model.completed",
      callId: "m1",
      model: "m",
      durationMs: 1,
      toolCalls: 0,
      servedFromCache: false,
      finishReason: "stop",
    });
    await obs.close();
    const deltas = (await journal.read("run-2")).flatMap((r) =>
      r.event.type === "model.text_delta" ? [r.event] : [],
    );
    expect(deltas.map((d) => d.text)).toEqual(["Your key: ", "[REDACTED]. Done."]);
    expect(deltas[1]?.deltas).toBe(4);
  });
});
