import {
  type AssistantMessage,
  type ContentBlock,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ModelRequest,
  type ModelResponse,
} from "@tinyagents/inference";
import type { AgentEventOf } from "../../contracts/agent-event.js";
import {
  genAiInputMessages,
  genAiParts,
  genAiSystemInstructions,
  genAiToolDefinitions,
} from "../../observability/gen-ai-messages.js";
import type { Redactor } from "../../observability/redaction.js";
import { requestParameters } from "../../observability/trace-details-middleware.js";
import type { CassetteRequest, CassetteResponse } from "./cassette.js";

/** System instruction parts as one text (text parts as is, others as JSON), lines comparable. */
function systemText(parts: readonly JsonValue[]): string | undefined {
  if (parts.length === 0) return undefined;
  return parts
    .map((part) =>
      isJsonObject(part) && part.type === "text" && typeof part.content === "string"
        ? part.content
        : JSON.stringify(part),
    )
    .join("\n");
}

/** Plain JSON (drops `undefined`, copies). */
function json<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The request the journal recorded (`model.request` with content), as a cassette request. */
export function recordedRequest(event: AgentEventOf<"model.request">): CassetteRequest {
  const request: CassetteRequest = {
    messages: json((event.inputMessages ?? []) as JsonObject[]),
    parameters: json(event.parameters),
  };
  const system = systemText(event.systemInstructions ?? []);
  if (system !== undefined) request.system = system;
  if (event.toolDefinitions !== undefined) request.tools = json(event.toolDefinitions as JsonObject[]);
  if (event.responseFormat !== undefined) request.responseFormat = json(event.responseFormat);
  return request;
}

/**
 * A live request in the recorded shape, redacted as the journal redacts (a secret in the live
 * prompt matches the recording's `[REDACTED]`).
 */
export function liveRequest(request: ModelRequest, redactor: Redactor): CassetteRequest {
  const view: CassetteRequest = {
    messages: genAiInputMessages(request.messages),
    parameters: requestParameters(request),
  };
  const system = systemText(genAiSystemInstructions(request.messages));
  if (system !== undefined) view.system = system;
  if (request.tools !== undefined && request.tools.length > 0)
    view.tools = genAiToolDefinitions(request.tools);
  if (request.responseFormat !== undefined) view.responseFormat = request.responseFormat as JsonValue;
  return json(redactor.redact(view as unknown as JsonValue) as unknown as CassetteRequest);
}

/** A live response in the recorded shape (what-if mode compares answers too). */
export function liveResponse(response: ModelResponse): CassetteResponse {
  const out: CassetteResponse = {
    content: genAiParts(response.message.content),
    toolCalls: response.message.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: call.arguments as JsonValue,
    })),
  };
  if (response.finishReason !== undefined) out.finishReason = response.finishReason;
  return json(out);
}

/** Content blocks from GenAI parts (text and reasoning; anything else as JSON text). */
export function blocksFromParts(parts: readonly JsonValue[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const part of parts) {
    if (!isJsonObject(part)) continue;
    const content = typeof part.content === "string" ? part.content : JSON.stringify(part.content ?? "");
    if (part.type === "text") blocks.push({ type: "text", text: content });
    else if (part.type === "reasoning") blocks.push({ type: "reasoning", text: content });
    else blocks.push({ type: "text", text: JSON.stringify(part) });
  }
  return blocks;
}

/** The model response a recorded answer replays as. */
export function responseFromCassette(recorded: CassetteResponse): ModelResponse {
  const message: AssistantMessage = {
    role: "assistant",
    content: blocksFromParts(recorded.content),
    toolCalls: recorded.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: (isJsonObject(call.arguments) ? call.arguments : {}) as JsonObject,
    })),
  };
  const response: ModelResponse = { message };
  if (recorded.usage !== undefined) response.usage = recorded.usage;
  if (recorded.finishReason !== undefined) response.finishReason = recorded.finishReason;
  return response;
}

const PART_TYPES = new Set(["text", "reasoning", "uri", "blob"]);

/**
 * Content blocks from a recorded tool result (`gen_ai.tool.call.result`): a string was one text
 * block, a list of GenAI parts several blocks, any other value one JSON block.
 */
export function toolContentFromResult(result: JsonValue): ContentBlock[] {
  if (typeof result === "string") return [{ type: "text", text: result }];
  if (
    Array.isArray(result) &&
    result.length > 0 &&
    result.every((p) => isJsonObject(p) && typeof p.type === "string" && PART_TYPES.has(p.type))
  ) {
    return blocksFromParts(result);
  }
  return [{ type: "json", value: result }];
}
