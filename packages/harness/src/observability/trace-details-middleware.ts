import type {
  JsonObject,
  JsonValue,
  Message,
  ModelRequest,
  ModelResponse,
  ToolSchema,
} from "@tinyagents/inference";
import { writePromptPrefix } from "../cache/prompt-fingerprint.js";
import { type LaidOutSegment, layoutSegments } from "../cache/request-layout.js";
import type { ToolResult } from "../contracts/tool-result.js";
import type {
  CallDetailsRecorder,
  ModelRequestDetails,
  ModelResponseDetails,
  ToolResultDetails,
} from "../contracts/trace-details.js";
import { CALL_DETAILS, type CarriesCallDetails } from "../middleware/call-details-key.js";
import type { Middleware } from "../middleware/middleware.js";
import {
  genAiAssistantMessage,
  genAiInputMessages,
  genAiSystemInstructions,
  genAiToolDefinitions,
  genAiToolResult,
} from "./gen-ai-messages.js";

/** Options of {@link traceDetailsMiddleware}. */
export interface TraceDetailsOptions {
  /**
   * Also record content: system instructions, input and output messages, tool definitions and
   * tool results. Off by default: prompts and results may hold personal data or secrets. Content
   * travels in events, so the redaction of `attachObservability` (and of the exporters) scrubs it
   * like everything else; arguments of tool calls are in `tool.started` already.
   */
  captureContent?: boolean;
}

/**
 * What exporters need beyond the lifecycle events, recorded on the records each call writes
 * anyway (`details`, see contracts/trace-details.ts): on the first attempt's `model.started` the
 * request parameters and the stable-prefix fingerprint (with content capture the prompt and tool
 * definitions), on `model.completed` the provider's response id (with content capture the
 * answer), on `tool.completed` (or `tool.failed` that became an error result) the tool's
 * description (with content capture the result). Messages follow the OpenTelemetry GenAI
 * conventions (`gen_ai.input.messages`, ...). `OtelTracer`, `LangfuseClient`, the CLI's inspector
 * and replay's cassette export read them (and the separate `model.request` / `model.response` /
 * `tool.result` records of journals written by earlier versions).
 *
 * The middleware has no hooks: the loop records the details of the request it sends the
 * provider, after every middleware's edits, so where it is registered does not matter, and it
 * adds no record, no hook dispatch and no promise to a call. Registered more than once, one
 * serves the run, with content if any asks. A detail that cannot be computed (a value that is
 * not JSON in the request) leaves the record without `details`; it never fails the call.
 *
 * ```ts
 * harness.use(traceDetailsMiddleware({ captureContent: true }));
 * ```
 */
export function traceDetailsMiddleware(options: TraceDetailsOptions = {}): Middleware {
  const middleware: Middleware & CarriesCallDetails = { name: "traceDetails" };
  middleware[CALL_DETAILS] = new TraceDetailsRecorder(options.captureContent === true);
  return middleware;
}

/** The details of {@link traceDetailsMiddleware}, built from what the loop has at hand. */
class TraceDetailsRecorder implements CallDetailsRecorder {
  private readonly stablePrefix = new StablePrefixMemo();

  constructor(readonly capturesContent: boolean) {}

  request(request: ModelRequest): ModelRequestDetails {
    const details: ModelRequestDetails = {
      parameters: requestParameters(request),
      // Hashes the tools and the stable messages only (not the growing history): the inspector's
      // prompt-cache view compares it call to call.
      stablePrefix: this.stablePrefix.of(request),
    };
    if (this.capturesContent) {
      const system = genAiSystemInstructions(request.messages);
      if (system.length > 0) details.systemInstructions = system;
      details.inputMessages = genAiInputMessages(request.messages);
      if (request.tools !== undefined && request.tools.length > 0) {
        details.toolDefinitions = genAiToolDefinitions(request.tools);
      }
      if (request.responseFormat !== undefined) details.responseFormat = request.responseFormat as JsonValue;
    }
    return details;
  }

  response(response: ModelResponse): ModelResponseDetails {
    const details: ModelResponseDetails = {};
    const id = responseId(response);
    if (id !== undefined) details.responseId = id;
    if (this.capturesContent)
      details.outputMessages = [genAiAssistantMessage(response.message, response.finishReason)];
    return details;
  }

  toolResult(result: ToolResult, description: string | undefined): ToolResultDetails {
    const details: ToolResultDetails = {};
    if (description !== undefined && description !== "") details.description = description;
    if (this.capturesContent) details.result = genAiToolResult(result.content);
    return details;
  }
}

/**
 * `stablePrefixFingerprint(request)` of successive requests, with the last answer remembered:
 * the fingerprint hashes the tool declarations' digest and the digests of the messages of the
 * cacheable segments before the first `history` segment, each memoized per object (a frozen tool
 * list, a message), so a request with the same frozen tool list, the same segments and the same
 * stable message OBJECTS as the previous one has the same fingerprint. Every call of a run (and
 * of the agent's other runs) usually does: it costs a layout and identity comparisons instead of
 * a SHA-256 over the stream. Unfrozen tool lists are hashed every time (they may have been edited).
 */
export class StablePrefixMemo {
  private tools: readonly ToolSchema[] | undefined;
  /** The stable segments' layout: a string for declared segments, a number for the default one. */
  private segments: string | number = "";
  private messages: readonly Message[] = [];
  private fingerprint: string | undefined;

  of(request: ModelRequest): string {
    const tools = request.tools;
    let segments: LaidOutSegment[] | undefined;
    let key: string | number;
    let stableEnd = 0;
    const declared = request.cacheSegments;
    if (declared === undefined || declared.length === 0) {
      // The default layout's stable part is the tool declarations and the leading system
      // messages (see `layoutSegments`): no need to lay out, or scan, the history.
      const messages = request.messages;
      while (stableEnd < messages.length && messages[stableEnd]?.role === "system") stableEnd++;
      key = stableEnd * 2 + (tools !== undefined && tools.length > 0 ? 1 : 0);
    } else {
      segments = layoutSegments(request);
      key = "";
      for (const segment of segments) {
        if (!segment.inPrefix || segment.role === "history") break;
        key += `${segment.id}\u0000${segment.role}\u0000${segment.end - segment.start}\u0001`;
        stableEnd = Math.max(stableEnd, segment.end);
      }
    }
    const frozen = tools === undefined || Object.isFrozen(tools);
    if (
      frozen &&
      this.fingerprint !== undefined &&
      tools === this.tools &&
      key === this.segments &&
      sameMessages(this.messages, request.messages, stableEnd)
    ) {
      return this.fingerprint;
    }
    segments ??= layoutSegments(request);
    const fingerprint = writePromptPrefix(request, { segments, stableOnly: true }).stableFingerprint;
    if (frozen) {
      this.tools = tools;
      this.segments = key;
      this.messages = request.messages.slice(0, stableEnd);
      this.fingerprint = fingerprint;
    }
    return fingerprint;
  }
}

/** Whether `messages` starts with exactly the `count` message objects of `known`. */
function sameMessages(known: readonly Message[], messages: readonly Message[], count: number): boolean {
  if (known.length !== count) return false;
  for (let i = 0; i < count; i++) if (known[i] !== messages[i]) return false;
  return true;
}

/** The request options a trace shows as model parameters (no messages, no secrets). */
export function requestParameters(request: ModelRequest): JsonObject {
  const parameters: JsonObject = {};
  if (request.temperature !== undefined) parameters.temperature = request.temperature;
  if (request.topP !== undefined) parameters.topP = request.topP;
  if (request.maxTokens !== undefined) parameters.maxTokens = request.maxTokens;
  if (request.stop !== undefined) parameters.stop = request.stop;
  if (request.seed !== undefined) parameters.seed = request.seed;
  if (request.toolChoice !== undefined) parameters.toolChoice = request.toolChoice as JsonValue;
  if (request.parallelToolCalls !== undefined) parameters.parallelToolCalls = request.parallelToolCalls;
  if (request.responseFormat !== undefined) parameters.responseFormat = request.responseFormat.type;
  if (request.reasoning !== undefined) parameters.reasoning = request.reasoning as unknown as JsonValue;
  if (request.tools !== undefined) parameters.tools = request.tools.length;
  return parameters;
}

/** The provider's response id: the assistant message's id, else `id` of the raw response. */
export function responseId(response: ModelResponse): string | undefined {
  if (typeof response.message.id === "string" && response.message.id !== "") return response.message.id;
  const raw = response.raw;
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    const id = (raw as JsonObject).id;
    if (typeof id === "string" && id !== "") return id;
  }
  return undefined;
}
