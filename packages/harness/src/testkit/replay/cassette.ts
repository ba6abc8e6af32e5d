import {
  type ErrorSummary,
  type FinishReason,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type Usage,
  validationError,
} from "@tinyagents/inference";

/** The `format` tag of every cassette. */
export const CASSETTE_FORMAT = "tinyagents.cassette";
/** The cassette format version this testkit writes and reads. */
export const CASSETTE_VERSION = 1;

/**
 * One model request as the provider received it, provider-neutral and JSON: the shape the
 * journal's `model.request` event records (OpenTelemetry GenAI messages), so a recorded request
 * and a live one compare field by field.
 */
export interface CassetteRequest {
  /** The system instructions as text (parts joined by newlines), when there are any. */
  system?: string;
  /** The chat history without system messages (`gen_ai.input.messages`). */
  messages: JsonObject[];
  /** Tool declarations (`gen_ai.tool.definitions`), when the request offers tools. */
  tools?: JsonObject[];
  /** Settings: temperature, maxTokens, toolChoice, response format type, tool count, ... */
  parameters: JsonObject;
  /** The full response format (structured output), when the request asks for one. */
  responseFormat?: JsonValue;
}

/** A tool call the model asked for. */
export interface CassetteToolCallRequest {
  id: string;
  name: string;
  arguments: JsonValue;
}

/** What the model answered. */
export interface CassetteResponse {
  /** Text and reasoning parts (GenAI parts: `{ type: "text", content }`, ...). */
  content: JsonObject[];
  toolCalls: CassetteToolCallRequest[];
  finishReason?: FinishReason;
  usage?: Usage & JsonObject;
}

/** One model call: the request, and the response or the error that ended it. */
export interface CassetteModelCall {
  callId: string;
  /** The registered model that answered. */
  model?: string;
  request: CassetteRequest;
  response?: CassetteResponse;
  /** The call failed after its retries and fallbacks: replay fails it the same way. */
  error?: ErrorSummary & JsonObject;
  /** Attempts that failed before the answer (retries, fallbacks): informational. */
  failedAttempts?: (ErrorSummary & JsonObject)[];
  /** A fallback model took over (`from` → `to`): informational. */
  fallback?: { from: string; to: string };
}

/** One tool call with its arguments and the result the tool returned. */
export interface CassetteToolCall {
  callId: string;
  name: string;
  arguments: JsonValue;
  /** The result content (`gen_ai.tool.call.result`: text, a JSON value, or parts). */
  result?: JsonValue;
  isError?: boolean;
  /** The call failed the run (error policy `fail`): replay fails it the same way. */
  error?: ErrorSummary & JsonObject;
  /** A sub-agent call: the child run's id (its section is in `children`). */
  childRunId?: string;
}

/** A human approval decision on a tool call. */
export interface CassetteApproval {
  callId: string;
  toolName: string;
  decision: "approve" | "reject" | "pending";
  reason?: string;
}

/** One run of the tree (the root, or a sub-agent nested under the tool call that started it). */
export interface CassetteRun {
  runId: string;
  /** The sub-agent's name (children only). */
  agent?: string;
  /** The parent's tool call that started this child (children only). */
  parentCallId?: string;
  modelCalls: CassetteModelCall[];
  toolCalls: CassetteToolCall[];
  approvals?: CassetteApproval[];
  /** Steering commands applied during the run (kinds, informational). */
  steering?: JsonObject[];
  children?: CassetteRun[];
  /** How the recorded run ended: `completed`, `failed`, `interrupted`. */
  outcome?: string;
}

/**
 * What replay tolerates, stated in the cassette (and overridable per `replayRun` call):
 * `ignore` — request field paths not compared (`parameters.seed`, `messages[*].parts[*].content`,
 * `*` matches one segment, a path also covers everything below it); `mask` — regular
 * expressions whose matches are blanked in every string before comparing (dates, ids);
 * `reexecute` — tool names executed live instead of replayed; `whatIf` — report where the
 * transcript first changes instead of failing.
 */
export interface CassetteTolerances {
  ignore: string[];
  mask: string[];
  reexecute: string[];
  whatIf: boolean;
}

/** Where the recorded agent came from: a library agent, or a CLI command (rebuilt from flags). */
export type CassetteSource =
  | { kind: "library" }
  | { kind: "cli"; command: string; model: string; agent?: JsonObject };

/** A recorded run, ready to replay (`replayRun`). See docs/testkit.md for the format. */
export interface Cassette {
  format: typeof CASSETTE_FORMAT;
  version: typeof CASSETTE_VERSION;
  /** The recorded root run's id (replay reuses it, so approval ids match). */
  runId: string;
  /** Epoch ms of the recording's first event (replay's virtual clock starts there). */
  recordedAt: number;
  source: CassetteSource & JsonObject;
  /** The run's input: a prompt, or user messages (GenAI shape). */
  input: string | JsonObject[];
  tolerances: CassetteTolerances;
  run: CassetteRun;
}

// Keys first in this order (when present), the rest alphabetically: a cassette diff in a pull
// request reads top-down (what was asked before what was answered) and never reorders.
const KEY_ORDER = [
  "format",
  "version",
  "runId",
  "recordedAt",
  "source",
  "kind",
  "command",
  "input",
  "tolerances",
  "agent",
  "parentCallId",
  "outcome",
  "callId",
  "id",
  "type",
  "role",
  "name",
  "model",
  "request",
  "system",
  "messages",
  "parameters",
  "tools",
  "responseFormat",
  "response",
  "content",
  "modelCalls",
  "toolCalls",
  "arguments",
  "result",
  "isError",
  "finishReason",
  "usage",
  "approvals",
  "children",
];
const RANK = new Map(KEY_ORDER.map((key, i) => [key, i]));

function compareKeys(a: string, b: string): number {
  const ra = RANK.get(a) ?? KEY_ORDER.length;
  const rb = RANK.get(b) ?? KEY_ORDER.length;
  return ra !== rb ? ra - rb : a < b ? -1 : a > b ? 1 : 0;
}

// Values kept exactly as recorded: a tool's result and a call's arguments are data whose key
// order the model saw (a JSON result reaches it as text), so reordering them would change it.
const VERBATIM = new Set(["result", "arguments"]);

/** `value` with every object's keys in the cassette's stable order (recorded data kept as is). */
export function stableOrder(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(stableOrder);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort(compareKeys)) {
    const v = value[key];
    if (v !== undefined) out[key] = VERBATIM.has(key) ? v : stableOrder(v);
  }
  return out;
}

/** The cassette as text: stable key order, two-space indent, trailing newline. */
export function serializeCassette(cassette: Cassette): string {
  return `${JSON.stringify(stableOrder(cassette as unknown as JsonValue), null, 2)}\n`;
}

/**
 * Read a cassette (its JSON text or the parsed value), checking the format tag and version.
 * Throws `validation` naming what is wrong.
 */
export function parseCassette(source: string | Cassette | JsonValue): Cassette {
  let value: JsonValue;
  try {
    value = typeof source === "string" ? (JSON.parse(source) as JsonValue) : (source as JsonValue);
  } catch (error) {
    throw validationError(`cassette is not JSON: ${(error as Error).message}`, { field: "cassette" });
  }
  if (!isJsonObject(value) || value.format !== CASSETTE_FORMAT) {
    throw validationError(
      `not a tinyagents cassette (expected "format": "${CASSETTE_FORMAT}"); export one with exportRunAsTest or \`tinyagents test export\``,
      { field: "format" },
    );
  }
  if (value.version !== CASSETTE_VERSION) {
    throw validationError(
      `cassette version ${JSON.stringify(value.version)} is not supported (this testkit reads version ${CASSETTE_VERSION}); export the run again`,
      { field: "version" },
    );
  }
  if (!isJsonObject(value.run) || !Array.isArray(value.run.modelCalls) || typeof value.runId !== "string") {
    throw validationError("cassette has no `run` section with `modelCalls`; export the run again", {
      field: "run",
    });
  }
  const tolerances = isJsonObject(value.tolerances) ? value.tolerances : {};
  return {
    ...(value as unknown as Cassette),
    tolerances: {
      ignore: strings(tolerances.ignore, "tolerances.ignore"),
      mask: strings(tolerances.mask, "tolerances.mask"),
      reexecute: strings(tolerances.reexecute, "tolerances.reexecute"),
      whatIf: tolerances.whatIf === true,
    },
  };
}

function strings(value: JsonValue | undefined, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw validationError(`cassette ${field} must be a list of strings`, { field });
  }
  return value as string[];
}
