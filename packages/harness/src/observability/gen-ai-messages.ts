import type {
  AssistantMessage,
  ContentBlock,
  FinishReason,
  JsonObject,
  JsonValue,
  Message,
  ToolSchema,
} from "@tinyagents/inference";

// Harness messages in the shapes of the OpenTelemetry GenAI semantic conventions (v1.37+):
// `gen_ai.system_instructions`, `gen_ai.input.messages`, `gen_ai.output.messages` and
// `gen_ai.tool.definitions`. Plain JSON, so the same values travel in events, journals, OTel
// attributes and Langfuse observations. Images keep their URL but never inline base64 data.

/** One message part: `text`, `reasoning`, `tool_call`, `tool_call_response`, `uri`, `blob` or a custom type. */
export type GenAiPart = JsonObject;

/** The parts of a content block list. */
export function genAiParts(content: readonly ContentBlock[]): GenAiPart[] {
  const parts: GenAiPart[] = [];
  for (const block of content) {
    switch (block.type) {
      case "text":
        parts.push({ type: "text", content: block.text });
        break;
      case "json":
        parts.push({ type: "text", content: JSON.stringify(block.value) });
        break;
      case "reasoning":
        parts.push({ type: "reasoning", content: block.text });
        break;
      case "redacted_reasoning":
        parts.push({ type: "reasoning", content: "[redacted by the provider]" });
        break;
      case "image":
        parts.push(
          block.source.kind === "url"
            ? { type: "uri", modality: "image", uri: block.source.url }
            : { type: "blob", modality: "image", mime_type: block.source.mimeType, content: "[omitted]" },
        );
        break;
      case "provider_extension":
        parts.push({ type: block.provider, content: block.value });
        break;
    }
  }
  return parts;
}

/** `gen_ai.system_instructions`: the parts of every system message, in order. */
export function genAiSystemInstructions(messages: readonly Message[]): GenAiPart[] {
  const parts: GenAiPart[] = [];
  for (const message of messages) if (message.role === "system") parts.push(...genAiParts(message.content));
  return parts;
}

/** `gen_ai.input.messages`: the chat history without system messages (those are instructions). */
export function genAiInputMessages(messages: readonly Message[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const message of messages) {
    if (message.role === "system") continue;
    if (message.role === "assistant") {
      out.push(genAiAssistantMessage(message));
      continue;
    }
    if (message.role === "tool") {
      const response = message.content.length === 1 && message.content[0]?.type === "text";
      out.push({
        role: "tool",
        parts: [
          {
            type: "tool_call_response",
            id: message.toolCallId,
            response: response ? (message.content[0] as { text: string }).text : genAiParts(message.content),
          },
        ],
      });
      continue;
    }
    out.push({ role: "user", parts: genAiParts(message.content) });
  }
  return out;
}

/** One assistant message (text, reasoning and tool-call parts), with `finish_reason` when given. */
export function genAiAssistantMessage(message: AssistantMessage, finishReason?: FinishReason): JsonObject {
  const parts: GenAiPart[] = genAiParts(message.content);
  for (const call of message.toolCalls) {
    parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments });
  }
  const out: JsonObject = { role: "assistant", parts };
  if (finishReason !== undefined) out.finish_reason = finishReason;
  return out;
}

/** `gen_ai.tool.definitions`. */
export function genAiToolDefinitions(tools: readonly ToolSchema[]): JsonObject[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }));
}

/** A tool result's content as `gen_ai.tool.call.result`: the text when it is one text block. */
export function genAiToolResult(content: readonly ContentBlock[]): JsonValue {
  if (content.length === 1 && content[0]?.type === "text") return content[0].text;
  if (content.length === 1 && content[0]?.type === "json") return content[0].value;
  return genAiParts(content);
}
