import { type JsonValue, validationError } from "@tinyagents/inference";
import type { EventRecord } from "../contracts/agent-event.js";
import { type RedactionOptions, Redactor } from "../observability/redaction.js";
import { buildTraceModels } from "./build-trace-models.js";
import { checkKey, checkRecords, checkUrl, positive } from "./client-validation.js";
import { origin } from "./http-post.js";
import type { LangfuseFailedItem } from "./ingestion-response.js";
import { LangfuseDatasets } from "./langfuse-datasets.js";
import { langfuseConfigFromEnv } from "./langfuse-env.js";
import { type SendContext, sendEnvelopes, sendIngestion, sendOtlp } from "./langfuse-send.js";
import {
  type LangfuseScore,
  type LangfuseSuccessScoreOption,
  type ResolvedScore,
  resolveScores,
  scoreEnvelopes,
  successScore,
} from "./scores.js";
import { LANGFUSE_SDK_INFO } from "./sdk-info.js";
import { otlpTraceId } from "./stable-id.js";
import type { TraceModelOptions } from "./trace-model.js";
import type { LangfuseTraceOptions } from "./trace-options.js";

/**
 * `otlp`: OTLP/HTTP protobuf (Langfuse's current ingestion), sent by the official OpenTelemetry
 * exporter — needs the optional peer `@opentelemetry/exporter-trace-otlp-proto`.
 * `ingestion`: the deprecated batch API (JSON over `fetch`, no peer).
 */
export type LangfuseTransport = "otlp" | "ingestion";

/** Options of every `LangfuseClient` factory. */
export interface LangfuseClientOptions {
  /** Default `otlp` for `direct`; `ingestion` for `proxy` (the proxy's documented endpoint). */
  transport?: LangfuseTransport;
  /** Replaces the endpoint path of the chosen transport (see {@link LANGFUSE_PATHS}). */
  path?: string;
  /** Per request; default 10 000 ms. With `otlp` it bounds the exporter's retries too. */
  timeoutMs?: number;
  /** Split exports into requests of at most this many bytes; default 3 500 000 (Langfuse's guideline). */
  maxRequestBytes?: number;
  /** OTLP resource `service.name`; default `tinyagents`. */
  serviceName?: string;
  /**
   * Injectable fetch (tests, proxies, instrumentation) for the ingestion endpoint (the `ingestion`
   * transport and scores); default the platform `fetch`. The `otlp` transport sends spans with
   * the OpenTelemetry exporter's own Node HTTP client.
   */
  fetch?: typeof fetch;
  /**
   * Where scores are POSTed when the transport is `otlp` (scores have no OTLP form, so they go to
   * the batch ingestion endpoint as `score-create` events). Default: the mode's ingestion path
   * (see {@link LANGFUSE_PATHS}). With the `ingestion` transport scores share the export's batches.
   */
  scorePath?: string;
}

/** Options of {@link LangfuseClient.exportRun}: trace fields, naming, content capture, scores, abort. */
export interface LangfuseExportOptions extends LangfuseTraceOptions, TraceModelOptions {
  signal?: AbortSignal;
  /** Scores for the exported trace or its observations, sent as `score-create` events. */
  scores?: readonly LangfuseScore[];
  /**
   * Secret scrubbing of the records before anything is built from them: the journals' `Redactor`
   * (built-in rules, extended by these options, or a shared `Redactor`). Default on; `false` for
   * records that come redacted already (read from a journal written by `attachObservability`).
   */
  redact?: RedactionOptions | Redactor | false;
  /**
   * Opt-in: a BOOLEAN score (default name `success`) per exported trace, true when the root run
   * completed, false when it failed (none for an interrupted or unfinished run). Default off.
   */
  successScore?: LangfuseSuccessScoreOption;
}

/** Options of {@link LangfuseClient.exportScores}. */
export interface LangfuseScoreOptions {
  /** Langfuse environment of the scores (use the one the trace was exported with). */
  environment?: string;
  signal?: AbortSignal;
}

/** What an export did. Check `ok`: per-item failures are reported here, not thrown. */
export interface LangfuseExportResult {
  transport: LangfuseTransport;
  /** The URL written to (never with credentials). */
  endpoint: string;
  /** One per root run: OTLP hex trace ids, or (ingestion) the root run ids. */
  traceIds: string[];
  requests: number;
  /** Spans (OTLP) or envelopes (ingestion, scores included) sent. */
  items: number;
  /** `score-create` events sent (also sent over `otlp`: to the ingestion endpoint). */
  scores: number;
  /** Ingestion envelopes the server did not store (from 207 answers), by envelope id. */
  failed: LangfuseFailedItem[];
  /**
   * Spans the server rejected. Always 0 with the `otlp` transport: the OpenTelemetry exporter
   * reports an OTLP partial success through its `diag` logger, not to its caller.
   */
  rejectedSpans: number;
  /** True when nothing was reported failed or rejected. */
  ok: boolean;
}

/** Endpoint paths by connection mode and transport. */
export const LANGFUSE_PATHS = {
  direct: { otlp: "/api/public/otel/v1/traces", ingestion: "/api/public/ingestion" },
  /** The ingestion path is the tinyhumans backend's; its OTLP path is an assumption (override with `path`). */
  proxy: { otlp: "/telemetry/langfuse/otel/v1/traces", ingestion: "/telemetry/langfuse/ingestion" },
} as const;

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_REQUEST_BYTES = 3_500_000;

/**
 * Exports harness runs to Langfuse. Build one with {@link LangfuseClient.direct} (project keys,
 * HTTP Basic auth), {@link LangfuseClient.proxy} (a backend that forwards to Langfuse, bearer
 * token) or {@link LangfuseClient.fromEnv}; then `exportRun(records)` sends a run's event
 * records as a trace of agent spans, generations (model, usage, cost, timing), tool spans and
 * events.
 *
 * Nothing is retried silently: HTTP and network failures throw a `ProviderError` (code
 * `provider`, with `retryable`), bad input throws `validation`, per-envelope ingestion failures
 * come back in the result. Credentials live in private fields: they never appear in errors,
 * `JSON.stringify`, `String()` or `util.inspect`, and echoed server bodies are scrubbed.
 */
export class LangfuseClient {
  /** `direct` (Langfuse keys) or `proxy` (bearer token). */
  readonly mode: "direct" | "proxy";
  /** The wire format exports use (see {@link LangfuseTransport}). */
  readonly transport: LangfuseTransport;
  /** The full endpoint URL exports are POSTed to. */
  readonly endpoint: string;
  /** Where `score-create` batches go: `endpoint` for `ingestion`, else the ingestion endpoint. */
  readonly scoreEndpoint: string;
  readonly #headers: Record<string, string>;
  readonly #baseUrl: string;
  readonly #publicKey: string | undefined;
  readonly #secrets: string[];
  readonly #timeoutMs: number;
  readonly #maxRequestBytes: number;
  readonly #serviceName: string;
  readonly #fetch: typeof fetch;

  private constructor(
    mode: "direct" | "proxy",
    baseUrl: string,
    auth: { headers: Record<string, string>; secrets: string[]; publicKey?: string },
    options: LangfuseClientOptions,
  ) {
    this.mode = mode;
    this.transport = options.transport ?? (mode === "direct" ? "otlp" : "ingestion");
    if (this.transport !== "otlp" && this.transport !== "ingestion") {
      throw validationError(
        `LangfuseClient: transport must be "otlp" or "ingestion", got ${String(this.transport)}`,
        {
          field: "transport",
        },
      );
    }
    if (options.path !== undefined && !options.path.startsWith("/")) {
      throw validationError(`LangfuseClient: path must start with "/", got "${options.path}"`, {
        field: "path",
      });
    }
    this.#baseUrl = baseUrl;
    this.endpoint = `${baseUrl}${options.path ?? LANGFUSE_PATHS[mode][this.transport]}`;
    if (options.scorePath !== undefined && !options.scorePath.startsWith("/")) {
      throw validationError(`LangfuseClient: scorePath must start with "/", got "${options.scorePath}"`, {
        field: "scorePath",
      });
    }
    this.scoreEndpoint =
      this.transport === "ingestion"
        ? this.endpoint
        : `${baseUrl}${options.scorePath ?? LANGFUSE_PATHS[mode].ingestion}`;
    this.#headers = {
      "content-type": "application/json",
      "x-langfuse-sdk-name": LANGFUSE_SDK_INFO.name,
      "x-langfuse-sdk-version": LANGFUSE_SDK_INFO.version,
      ...auth.headers,
    };
    this.#publicKey = auth.publicKey;
    this.#secrets = auth.secrets;
    this.#timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs");
    this.#maxRequestBytes = positive(options.maxRequestBytes, DEFAULT_MAX_REQUEST_BYTES, "maxRequestBytes");
    this.#serviceName = options.serviceName ?? "tinyagents";
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== "function") {
      throw validationError("LangfuseClient: no fetch available; pass options.fetch", { field: "fetch" });
    }
    this.#fetch = fetchImpl;
  }

  /**
   * Talk to Langfuse directly with a project's keys (`pk-lf-…`, `sk-lf-…`; organization keys are
   * refused by Langfuse). `baseUrl` is the Langfuse host, e.g. `https://cloud.langfuse.com`.
   *
   * @throws TinyAgentsError `validation` for a malformed URL or key (the key is never echoed).
   */
  static direct(
    baseUrl: string,
    publicKey: string,
    secretKey: string,
    options: LangfuseClientOptions = {},
  ): LangfuseClient {
    const url = checkUrl(baseUrl, "LangfuseClient.direct", "baseUrl");
    checkKey(publicKey, "publicKey");
    checkKey(secretKey, "secretKey");
    if (publicKey.startsWith("sk-lf-")) {
      throw validationError(
        "LangfuseClient.direct: publicKey looks like a secret key (sk-lf-…); pass the public key (pk-lf-…) first, then the secret key",
        { field: "publicKey" },
      );
    }
    const basic = btoa(`${publicKey}:${secretKey}`);
    return new LangfuseClient(
      "direct",
      url,
      {
        headers: { authorization: `Basic ${basic}`, "x-langfuse-public-key": publicKey },
        secrets: [secretKey, basic],
        publicKey,
      },
      options,
    );
  }

  /**
   * Send through a backend proxy that holds the Langfuse keys (bearer-token auth). `url` is the
   * proxy's base URL; the ingestion path `/telemetry/langfuse/ingestion` is appended (the
   * default transport here is `ingestion`; see {@link LANGFUSE_PATHS}).
   *
   * @throws TinyAgentsError `validation` for a malformed URL or an empty token.
   */
  static proxy(url: string, bearerToken: string, options: LangfuseClientOptions = {}): LangfuseClient {
    const base = checkUrl(url, "LangfuseClient.proxy", "url");
    const token = bearerToken.replace(/^bearer\s+/i, "");
    checkKey(token, "bearerToken");
    return new LangfuseClient(
      "proxy",
      base,
      { headers: { authorization: `Bearer ${token}` }, secrets: [token] },
      options,
    );
  }

  /**
   * From the environment: `TINYHUMANS_LANGFUSE_PROXY_URL` + `TINYHUMANS_AUTH_TOKEN` (proxy), else
   * `LANGFUSE_BASE_URL` + `LANGFUSE_PUBLIC_KEY` + `LANGFUSE_SECRET_KEY` (direct).
   *
   * @throws TinyAgentsError `validation` naming the missing variables.
   */
  static fromEnv(
    env: Readonly<Record<string, string | undefined>> = globalThis.process?.env ?? {},
    options: LangfuseClientOptions = {},
  ): LangfuseClient {
    const config = langfuseConfigFromEnv(env);
    return config.mode === "proxy"
      ? LangfuseClient.proxy(config.url, config.token, options)
      : LangfuseClient.direct(config.baseUrl, config.publicKey, config.secretKey, options);
  }

  /**
   * Export the event records of a run (and its sub-agent runs, if their records are included):
   * one trace per root run id. Records come from an `EventRecorder`, a journal or a sink
   * listener, in emission order. Sending the same records again updates rather than duplicates
   * (ids are deterministic).
   *
   * `scores` (and the opt-in `successScore`) are sent as `score-create` events: in the same
   * batches with the `ingestion` transport, in a follow-up ingestion request with `otlp`.
   *
   * @throws TinyAgentsError `validation` when `records` is empty or not event records, or a score
   *   is malformed or names an observation the records do not hold;
   *   `ProviderError` (`provider`) on an HTTP or network failure; `cancelled` on abort.
   */
  async exportRun(
    records: readonly EventRecord[],
    options: LangfuseExportOptions = {},
  ): Promise<LangfuseExportResult> {
    checkRecords(records);
    const {
      signal,
      agentName,
      captureContent,
      onContentWarning,
      scores,
      successScore: success,
      redact,
      ...trace
    } = options;
    const models = buildTraceModels(redactRecords(records, redact), {
      ...(agentName === undefined ? {} : { agentName }),
      ...(captureContent === undefined ? {} : { captureContent }),
      ...(onContentWarning === undefined ? {} : { onContentWarning }),
    });
    const endOf = new Map(models.map((model) => [model.rootRunId, model.endTs]));
    const resolved: ResolvedScore[] =
      scores === undefined
        ? []
        : resolveScores(scores, "LangfuseClient.exportRun", (root) => endOf.get(root) ?? Date.now(), models);
    if (success !== undefined && success !== false) {
      for (const model of models) {
        const score = successScore(model, success);
        if (score !== undefined) resolved.push(score);
      }
    }
    const context = this.#context(signal, trace, scoreEnvelopes(resolved, this.transport, trace.environment));
    const outcome =
      this.transport === "otlp" ? await sendOtlp(models, context) : await sendIngestion(models, context);
    return {
      transport: this.transport,
      endpoint: this.endpoint,
      ...outcome,
      ok: outcome.failed.length === 0 && outcome.rejectedSpans === 0,
    };
  }

  /**
   * Score runs exported earlier (user feedback, evaluations that finish later): `score-create`
   * events to the ingestion endpoint ({@link scoreEndpoint}), pointing at the ids the client's
   * transport gave the traces (OTLP hex ids, or the root run ids for `ingestion`). Each score
   * needs `rootRunId`; a generation target needs its `attempt`. Sending the same score again
   * updates it (deterministic ids).
   *
   * @throws TinyAgentsError `validation` for a malformed score (naming the field);
   *   `ProviderError` (`provider`) on an HTTP or network failure; `cancelled` on abort.
   */
  async exportScores(
    scores: readonly LangfuseScore[],
    options: LangfuseScoreOptions = {},
  ): Promise<LangfuseExportResult> {
    const resolved = resolveScores(scores, "LangfuseClient.exportScores", () => Date.now());
    if (resolved.length === 0) {
      throw validationError("LangfuseClient.exportScores: scores must hold at least one score", {
        field: "scores",
      });
    }
    const envelopes = scoreEnvelopes(resolved, this.transport, options.environment);
    const context = this.#context(options.signal, {}, envelopes);
    const sent = await sendEnvelopes(envelopes, context, this.scoreEndpoint, "Langfuse score ingestion");
    const roots = [...new Set(resolved.map((score) => score.rootRunId))];
    return {
      transport: this.transport,
      endpoint: this.scoreEndpoint,
      traceIds: this.transport === "otlp" ? roots.map(otlpTraceId) : roots,
      requests: sent.requests,
      items: envelopes.length,
      scores: envelopes.length,
      failed: sent.failed,
      rejectedSpans: 0,
      ok: sent.failed.length === 0,
    };
  }

  /**
   * The project's datasets and dataset runs (`LangfuseClient.direct` / `fromEnv` with keys only:
   * a proxy forwards traces, not the dataset API).
   *
   * @throws TinyAgentsError `validation` for a proxy client.
   */
  get datasets(): LangfuseDatasets {
    if (this.mode !== "direct") {
      throw validationError(
        "LangfuseClient.datasets needs a direct client (LangfuseClient.direct, or fromEnv with LANGFUSE_* keys); a proxy client sends traces only",
        { field: "mode" },
      );
    }
    return new LangfuseDatasets({
      baseUrl: this.#baseUrl,
      headers: this.#headers,
      timeoutMs: this.#timeoutMs,
      fetch: this.#fetch,
      secrets: this.#secrets,
    });
  }

  #context(
    signal: AbortSignal | undefined,
    trace: SendContext["trace"],
    scores: SendContext["scores"],
  ): SendContext {
    return {
      url: this.endpoint,
      scoreUrl: this.scoreEndpoint,
      headers: this.#headers,
      timeoutMs: this.#timeoutMs,
      fetch: this.#fetch,
      secrets: this.#secrets,
      maxRequestBytes: this.#maxRequestBytes,
      serviceName: this.#serviceName,
      batchMetadata: {
        sdk_name: LANGFUSE_SDK_INFO.name,
        sdk_version: LANGFUSE_SDK_INFO.version,
        sdk_integration: LANGFUSE_SDK_INFO.integration,
        ...(this.#publicKey === undefined ? {} : { public_key: this.#publicKey }),
      },
      trace,
      scores,
      ...(signal === undefined ? {} : { signal }),
    };
  }

  /** A description without credentials. */
  toString(): string {
    return `LangfuseClient(${this.mode}, ${this.transport}, ${origin(this.endpoint)})`;
  }

  /** JSON form without credentials. */
  toJSON(): { mode: string; transport: LangfuseTransport; endpoint: string } {
    return { mode: this.mode, transport: this.transport, endpoint: this.endpoint };
  }

  /** What `util.inspect` / `console.log` show: {@link toString}, never the credentials. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toString();
  }
}

/** `records` scrubbed by a `Redactor` (unchanged records stay the same objects). */
function redactRecords(
  records: readonly EventRecord[],
  option: RedactionOptions | Redactor | false | undefined,
): readonly EventRecord[] {
  if (option === false) return records;
  const redactor = option instanceof Redactor ? option : new Redactor(option);
  return records.map((record) => redactor.redact(record as unknown as JsonValue) as unknown as EventRecord);
}
