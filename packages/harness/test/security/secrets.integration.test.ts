/**
 * Secrets never leak: the REAL OpenAI-compatible and Anthropic adapters run against the replay
 * server with a fake API key taken from the environment (plus a secret extra header), while the
 * server does its worst — it echoes the key back in error bodies, in a stream error event after
 * some deltas, in a 200 body that is not JSON, in an error object inside a 200 JSON body, and a
 * network failure mentions it. Every artifact of every run is then searched for the key:
 * events, the JSONL journal and the JSONL log sink on disk (with redaction in the observability
 * pipeline TURNED OFF, so the library itself must not leak), the status store, the run (and its
 * stored raw payloads), the error (message, stack, JSON summary, raw body, `util.inspect` with
 * its cause chain), the logging middleware's output and anything written to the console.
 *
 * The key is deliberately NOT shaped like a well-known key (`sk-...`), so the generic
 * key-shape patterns cannot mask it: only the adapters' knowledge of their own credentials can.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import {
  AgentHarness,
  type AgentStreamItem,
  AppendLogEventJournal,
  attachObservability,
  EventSink,
  InMemoryHarnessStatusStore,
  loggingMiddleware,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import type { LogEntry } from "@tinyagents/harness/middleware";
import { JsonlAppendLog, JsonlSink } from "@tinyagents/harness/node";
import { DeterministicClock, DeterministicIds, EventRecorder } from "@tinyagents/harness/testkit";
import {
  AnthropicModel,
  type ChatModel,
  createModel,
  type FetchLike,
  ProviderError,
} from "@tinyagents/inference";
import { afterEach, describe, expect, it, vi } from "vitest";
import { chunk, errorResponse, sse, sseResponse } from "../../../inference/test/faults/wire.js";
import type { ReplayResponse } from "../../../inference/test/replay/replay-server.js";
import { useReplayServer } from "../../../inference/test/support/replay.js";

const KEY = "tinyagents-fake-key-7f3a9c1e5b2d";
const PROJECT = "proj-secret-42f9e1c7";

let dir: string;
const server = useReplayServer({ resetBeforeEach: false });
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** What an echoing server puts in front of the key. */
const echo = `Incorrect API key provided: ${KEY} (project ${PROJECT}; header "Authorization: Bearer ${KEY}")`;

function anthropicSse(events: readonly [string, unknown][]): string {
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

const ANTHROPIC_DELTAS: [string, unknown][] = [
  [
    "message_start",
    { type: "message_start", message: { id: "msg_1", model: "claude-x", usage: { input_tokens: 5 } } },
  ],
  [
    "content_block_start",
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  ],
  [
    "content_block_delta",
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
  ],
];

interface Provider {
  name: string;
  model: (fetch?: FetchLike) => ChatModel;
  /** The server's answers, each echoing the key somewhere. */
  faults: Record<string, ReplayResponse>;
}

const PROVIDERS: readonly Provider[] = [
  {
    name: "openai-compatible",
    model: (fetch) =>
      createModel("openai:gpt-fault-1", {
        env: { OPENAI_API_KEY: KEY },
        baseUrl: `${server.url}/v1`,
        headers: { "openai-project": PROJECT },
        ...(fetch === undefined ? {} : { fetch }),
      }),
    faults: {
      "401 echoing the key": errorResponse(401, {
        message: echo,
        type: "invalid_request_error",
        code: "invalid_api_key",
      }),
      "stream error event echoing the key": sseResponse(
        sse([chunk({ content: "partial" }), { error: { message: echo, type: "server_error" } }], false),
      ),
      "200 body that is not JSON": {
        status: 200,
        headers: { "content-type": "text/html" },
        body: `<html>${echo}</html>`,
      },
      "200 JSON error object": {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ error: { message: echo, type: "invalid_request_error" } }),
      },
      "malformed stream event": sseResponse(sse([chunk({ content: "a" }), `{"oops": "${KEY}"`], false)),
    },
  },
  {
    name: "anthropic",
    model: (fetch) =>
      new AnthropicModel({
        env: { ANTHROPIC_API_KEY: KEY },
        baseUrl: server.url,
        model: "claude-x",
        // A second credential (an OAuth-style bearer token) besides the key.
        headers: { authorization: `Bearer ${PROJECT}` },
        ...(fetch === undefined ? {} : { fetch }),
      }),
    faults: {
      "401 echoing the key": {
        status: 401,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "error", error: { type: "authentication_error", message: echo } }),
      },
      "stream error event echoing the key": {
        status: 200,
        headers: { "content-type": "text/event-stream" },
        body: anthropicSse([
          ...ANTHROPIC_DELTAS,
          ["error", { type: "error", error: { type: "overloaded_error", message: echo } }],
        ]),
      },
      "200 body that is not JSON": {
        status: 200,
        headers: { "content-type": "application/json" },
        body: `oops ${echo}`,
      },
      "200 JSON error object": {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "error", error: { type: "api_error", message: echo } }),
      },
    },
  },
];

/** A fetch failing before any response, with the key in its cause (as a proxy agent might). */
const leakyNetworkFailure: FetchLike = async () => {
  const cause = Object.assign(
    new Error(`connect ECONNREFUSED via proxy http://user:${KEY}@proxy.local:3128`),
    {
      code: "ECONNREFUSED",
    },
  );
  throw Object.assign(new TypeError("fetch failed"), { cause });
};

interface Artifacts {
  texts: Record<string, string>;
  error: unknown;
}

/** Run one agent turn against `model`; return every artifact the run produced, as text. */
async function runAndCollect(model: ChatModel, streaming: boolean): Promise<Artifacts> {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-secrets-"));
  const consoleOut: string[] = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation(
      (...args: unknown[]) => void consoleOut.push(args.map(String).join(" ")),
    );
  }
  const logs: LogEntry[] = [];
  const clock = new DeterministicClock();
  const harness = new AgentHarness<undefined, undefined>({
    clock,
    ids: new DeterministicIds(),
    policy: { retry: { maxRetries: 1 } },
  });
  harness.registerModel("m", model);
  harness.use(loggingMiddleware({ logger: (entry) => void logs.push(entry) }));
  const sink = new EventSink("secret-run", { now: () => clock.now() });
  const recorder = new EventRecorder();
  recorder.attach(sink);
  const log = new JsonlAppendLog(join(dir, "journal"), { onWarning: () => {} });
  const jsonl = new JsonlSink(join(dir, "events.jsonl"));
  const statusStore = new InMemoryHarnessStatusStore();
  const obs = attachObservability(sink, {
    journal: new AppendLogEventJournal(log),
    statusStore,
    sinks: [jsonl],
    redact: false,
  });
  const items: AgentStreamItem[] = [];
  let outcome: { run: unknown; status: unknown; error?: unknown };
  const options = { events: sink };
  if (streaming) {
    for await (const item of lowerLayer(harness).invokeStreaming(
      undefined,
      undefined,
      { runId: "secret-run" },
      "hi",
      options,
    ))
      items.push(item);
    const last = items.at(-1);
    outcome =
      last?.type === "failed"
        ? last
        : last?.type === "completed"
          ? last
          : { run: undefined, status: undefined };
  } else {
    outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "secret-run" },
      "hi",
      options,
    );
  }
  await obs.close();
  await jsonl.close();
  await log.close();
  const journalDir = join(dir, "journal");
  const error = outcome.error;
  const texts: Record<string, string> = {
    events: JSON.stringify(recorder.records),
    journal: readdirSync(journalDir)
      .map((f) => readFileSync(join(journalDir, f), "utf8"))
      .join("\n"),
    jsonlSink: readFileSync(join(dir, "events.jsonl"), "utf8"),
    statusStore: JSON.stringify(await statusStore.list()),
    run: JSON.stringify(outcome.run),
    status: JSON.stringify(outcome.status),
    logs: JSON.stringify(logs),
    console: consoleOut.join("\n"),
    errorMessage: error instanceof Error ? error.message : "",
    errorStack: error instanceof Error ? (error.stack ?? "") : "",
    errorSummary: JSON.stringify((error as { toJSON?: () => unknown } | undefined)?.toJSON?.() ?? null),
    errorRawBody: ProviderError.isProviderError(error) ? (error.rawBody ?? "") : "",
    errorInspect: inspect(error, { depth: 10 }),
    streamItems: JSON.stringify(
      items.map((i) => (i.type === "event" ? i.record : { type: i.type, run: i.run, status: i.status })),
    ),
  };
  return { texts, error };
}

function expectNoSecret(artifacts: Artifacts): void {
  for (const [name, text] of Object.entries(artifacts.texts)) {
    expect(text.includes(KEY), `${name} contains the API key:\n${text.slice(0, 2000)}`).toBe(false);
    expect(text.includes(PROJECT), `${name} contains the secret header value`).toBe(false);
  }
}

const PATHS = [
  ["unary", false],
  ["streaming", true],
] as const;

describe.each(PROVIDERS.map((p) => [p.name, p] as const))("%s adapter", (_name, provider) => {
  describe.each(PATHS)("%s", (_path, streaming) => {
    it.each(Object.keys(provider.faults))("%s: no artifact holds the key", async (fault) => {
      server.reset();
      server.setHandler(() => provider.faults[fault] as ReplayResponse);
      const artifacts = await runAndCollect(provider.model(), streaming);
      expect(ProviderError.isProviderError(artifacts.error)).toBe(true);
      // The server did receive the credentials (so there was something to leak)...
      const sent = server.requests[0]?.headers ?? {};
      expect(JSON.stringify(sent)).toContain(KEY);
      // ...and where the failure quotes the server, the key is masked, not dropped.
      const message = (artifacts.error as Error).message;
      if (message.includes("Incorrect API key")) expect(message).toContain("[REDACTED]");
      expectNoSecret(artifacts);
      server.closeConnections();
    });

    it("a network failure mentioning the key: no artifact holds it", async () => {
      const artifacts = await runAndCollect(provider.model(leakyNetworkFailure), streaming);
      expect(ProviderError.isProviderError(artifacts.error)).toBe(true);
      expect((artifacts.error as Error).message).toContain("ECONNREFUSED");
      expectNoSecret(artifacts);
    });
  });
});
