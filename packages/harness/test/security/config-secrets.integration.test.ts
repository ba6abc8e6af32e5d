/**
 * Secrets by configuration (issue 24, defect 6): a credential in a CUSTOM header (a gateway's
 * `x-gateway-api-key`, a name no built-in list knows) and one in the base URL's query string
 * (`?key=…`) are masked everywhere, although neither is shaped like a known key. A loopback
 * server echoes both back in its error body and its response headers; every artifact of the run
 * is searched: the error (message, stack, JSON summary, raw body, `util.inspect`), events, the
 * JSONL and SQLite journals and status records (with the pipeline's redaction OFF: the adapters
 * alone must not leak), OTel spans, the Langfuse payload, `util.inspect(model)` and the CLI's
 * `probe` output. Also: URL joining keeps the query at the end, and a bad base URL is refused at
 * construction without echoing it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  AgentHarness,
  AppendLogEventJournal,
  attachObservability,
  EventSink,
  InMemoryHarnessStatusStore,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { LangfuseClient, LangfuseSink } from "@tinyagents/harness/langfuse";
import { JsonlAppendLog } from "@tinyagents/harness/node";
import { createOtelListener } from "@tinyagents/harness/otel";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { DeterministicIds, EventRecorder } from "@tinyagents/harness/testkit";
import {
  AnthropicModel,
  type ChatModel,
  compatible,
  OllamaModel,
  OpenAiChatModel,
  OpenAiResponsesModel,
  ProviderError,
  systemClock,
  TinyAgentsError,
} from "@tinyagents/inference";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../cli/src/main.js";
import { acceptAll, closeServers, serve } from "../../src/langfuse/langfuse-server.fixture.js";

// Deliberately not shaped like any known key, and named by no built-in list.
const HEADER_SECRET = "gw7Qx2mZ4pL9vR1t";
const QUERY_SECRET = "qk5Hn8Wc3Jd6Ys0b";
const HEADER_NAME = "x-gateway-api-key";

let server: Server;
let url = "";
const seen: { path: string; header: string | undefined }[] = [];
let dir = "";

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    req.resume();
    const header = req.headers[HEADER_NAME];
    const value = Array.isArray(header) ? header.join(",") : header;
    seen.push({ path: req.url ?? "", header: value });
    // Echo everything the client sent: the path with its query, and the custom header.
    const echo = `invalid credentials ${value} for ${req.url} (${HEADER_NAME}: ${value})`;
    res.writeHead(401, {
      "content-type": "application/json",
      "x-echo-credential": `${value}`,
      "www-authenticate": `Bearer realm="${req.url}"`,
    });
    res.end(JSON.stringify({ error: { message: echo, type: "invalid_request_error", code: value } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await closeServers();
});
afterEach(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
  dir = "";
});

const headers = { [HEADER_NAME]: HEADER_SECRET };
const MODELS: readonly [string, () => ChatModel, string][] = [
  [
    "OpenAI-compatible",
    () => new OpenAiChatModel({ model: "m", baseUrl: `${url}/v1?key=${QUERY_SECRET}`, headers }),
    "/v1/chat/completions?key=",
  ],
  [
    "compatible()",
    () => compatible(`${url}/v1?key=${QUERY_SECRET}`, "m", { headers }),
    "/v1/chat/completions?key=",
  ],
  [
    "Anthropic",
    () =>
      new AnthropicModel({
        model: "claude-x",
        env: {},
        baseUrl: `${url}?key=${QUERY_SECRET}`,
        headers: { ...headers, authorization: "x" },
      }),
    "/v1/messages?key=",
  ],
  [
    "Ollama",
    () => new OllamaModel({ model: "llama3.2", env: {}, baseUrl: `${url}?key=${QUERY_SECRET}`, headers }),
    "/api/chat?key=",
  ],
  [
    "OpenAI Responses",
    () =>
      new OpenAiResponsesModel({
        model: "m",
        env: {},
        apiKey: "unused-key-123",
        baseUrl: `${url}/v1?key=${QUERY_SECRET}`,
        headers,
      }),
    "/v1/responses?key=",
  ],
];

function expectClean(name: string, text: string): void {
  expect(text.includes(HEADER_SECRET), `${name} holds the header credential:\n${text.slice(0, 1500)}`).toBe(
    false,
  );
  expect(text.includes(QUERY_SECRET), `${name} holds the ?key= value:\n${text.slice(0, 1500)}`).toBe(false);
}

describe.each(MODELS)("%s adapter: configured credentials reach no artifact", (_name, build, path) => {
  it.each([
    ["unary", false],
    ["streaming", true],
  ] as const)("%s run against an echoing server", async (_path, streaming) => {
    seen.length = 0;
    dir = mkdtempSync(join(tmpdir(), "tinyagents-config-secrets-"));
    const model = build();
    const harness = new AgentHarness<undefined, undefined>({
      clock: systemClock,
      ids: new DeterministicIds(),
    });
    harness.registerModel("m", model);
    const sink = new EventSink("run-1");
    const recorder = new EventRecorder();
    recorder.attach(sink);
    const jsonlLog = new JsonlAppendLog(join(dir, "journal"), { onWarning: () => {} });
    const sqlite = SqliteStore.open(join(dir, "store.sqlite"));
    const jsonlStatus = new InMemoryHarnessStatusStore();
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    sink.subscribe(createOtelListener(tracerProvider.getTracer("t"), { redact: false }));
    const langfuse = await serve(acceptAll);
    const langfuseSink = new LangfuseSink(
      LangfuseClient.direct(langfuse.url, "pk-lf-1", "sk-lf-1", { transport: "ingestion" }),
    );
    const obs = attachObservability(sink, {
      journal: new AppendLogEventJournal(jsonlLog),
      statusStore: jsonlStatus,
      sinks: [langfuseSink],
      redact: false,
    });
    const obsSqlite = attachObservability(sink, {
      journal: new AppendLogEventJournal(sqlite.appendLog),
      statusStore: sqlite.statusStore,
      redact: false,
    });
    let outcome: { run?: unknown; status?: unknown; error?: unknown };
    if (streaming) {
      let last: { type: string; run?: unknown; status?: unknown; error?: unknown } | undefined;
      for await (const item of lowerLayer(harness).invokeStreaming(
        undefined,
        undefined,
        { runId: "run-1" },
        "hi",
        {
          events: sink,
        },
      )) {
        last = item as typeof last;
      }
      outcome = last ?? {};
    } else {
      outcome = await lowerLayer(harness).invokeCollectingPartial(
        undefined,
        undefined,
        { runId: "run-1" },
        "hi",
        {
          events: sink,
        },
      );
    }
    await obs.close();
    await obsSqlite.close();
    await langfuseSink.close();
    await jsonlLog.close();
    await tracerProvider.forceFlush();

    // The server did get both credentials, in the URL we expect (query kept after the path).
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]?.path).toBe(`${path}${QUERY_SECRET}`);
    expect(seen[0]?.header).toBe(HEADER_SECRET);

    const error = outcome.error;
    expect(ProviderError.isProviderError(error)).toBe(true);
    const e = error as ProviderError;
    expect(e.message).toContain("[REDACTED]");
    const sqliteFile = readFileSync(join(dir, "store.sqlite")).toString("latin1");
    const texts: Record<string, string> = {
      errorMessage: e.message,
      errorStack: e.stack ?? "",
      errorSummary: JSON.stringify(e.toJSON()),
      errorRawBody: e.rawBody ?? "",
      errorInspect: inspect(e, { depth: 10 }),
      events: JSON.stringify(recorder.records),
      jsonlJournal: readdirSync(join(dir, "journal"))
        .map((f) => readFileSync(join(dir, "journal", f), "utf8"))
        .join("\n"),
      jsonlStatus: JSON.stringify(await jsonlStatus.list()),
      sqliteStatus: JSON.stringify(await sqlite.statusStore.list()),
      sqliteFile,
      run: JSON.stringify(outcome.run ?? null),
      status: JSON.stringify(outcome.status ?? null),
      otelSpans: JSON.stringify(
        exporter
          .getFinishedSpans()
          .map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events })),
      ),
      langfuse: langfuse.requests.map((r) => r.body).join("\n"),
      modelInspect: inspect(model, { depth: 10, showHidden: false }),
    };
    expect(langfuse.requests.length).toBeGreaterThan(0);
    expect(exporter.getFinishedSpans().length).toBeGreaterThan(0);
    sqlite.close();
    await tracerProvider.shutdown();
    for (const [name, text] of Object.entries(texts)) expectClean(name, text);
  });
});

describe("configured credentials: inspect, URL joining, validation, CLI", () => {
  it("util.inspect(model) shows header names and a masked endpoint, never the values", () => {
    const model = new OpenAiChatModel({
      model: "m",
      baseUrl: `https://gw.example/v1?key=${QUERY_SECRET}`,
      apiKey: "api-key-value-123",
      headers,
    });
    const shown = inspect(model, { depth: 10 });
    expectClean("inspect", shown);
    expect(shown).not.toContain("api-key-value-123");
    expect(shown).toContain(HEADER_NAME);
    expect(shown).toContain("https://gw.example/v1?key=REDACTED");
    // The request still goes to the real URL, query after the path.
    expect(model.baseUrl).toBe(`https://gw.example/v1?key=${QUERY_SECRET}`);
  });

  it.each([
    ["not a url", "OpenAiChatModel", () => new OpenAiChatModel({ model: "m", baseUrl: "not a url" })],
    [
      "ftp://h/x",
      "OpenAiChatModel",
      () => new OpenAiChatModel({ model: "m", baseUrl: `ftp://h/x?key=${QUERY_SECRET}` }),
    ],
    [
      "no scheme",
      "AnthropicModel",
      () => new AnthropicModel({ apiKey: "k", env: {}, baseUrl: `h:x?key=${QUERY_SECRET} y` }),
    ],
    [
      "spaces",
      "OllamaModel",
      () => new OllamaModel({ env: {}, baseUrl: `http://bad host/?key=${QUERY_SECRET}` }),
    ],
    ["compatible", "compatible", () => compatible(`nope?key=${QUERY_SECRET}`, "m")],
  ])("a bad base URL (%s) is a validation error naming the field, without echoing it", (_case, who, make) => {
    const error = (() => {
      try {
        make();
      } catch (e) {
        return e;
      }
    })();
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    const e = error as TinyAgentsError;
    expect(e.details).toMatchObject({ field: "baseUrl" });
    expect(e.message).toContain(who);
    expect(e.message).toContain("baseUrl");
    expectClean("validation message", e.message);
  });

  it("tinyagents probe prints no ?key= value (report, JSON report, unreachable message)", async () => {
    for (const args of [[], ["--json"]]) {
      let out = "";
      let err = "";
      const code = await main(
        ["probe", `${url}/v1?key=${QUERY_SECRET}`, "--model", "m", "--timeout-ms", "5000", ...args],
        {
          stdout: {
            write: (s: string) => {
              out += s;
            },
          },
          stderr: {
            write: (s: string) => {
              err += s;
            },
          },
          env: {},
        } as never,
      );
      expect(typeof code).toBe("number");
      expect(out + err).toContain("key=REDACTED");
      expectClean("probe output", out + err);
    }
    let err = "";
    await main(
      ["probe", `http://127.0.0.1:9/v1?key=${QUERY_SECRET}`, "--model", "m", "--timeout-ms", "2000"],
      {
        stdout: { write: () => undefined },
        stderr: {
          write: (s: string) => {
            err += s;
          },
        },
        env: {},
      } as never,
    );
    expect(err).toContain("could not reach");
    expectClean("probe unreachable", err);
  });
});
