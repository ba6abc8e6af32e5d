import { validationError } from "../errors/tinyagents-error.js";
import type { ContentBlock, ImageBlock } from "../message/content-block.js";
import type { Message, ToolMessage } from "../message/message.js";
import { declaredToolChoice } from "../model/declared-tool-choice.js";
import type { ModelRequest } from "../model/model-request.js";
import type { ToolChoice } from "../tool/tool-choice.js";
import type {
  AiSdkCallOptions,
  AiSdkFilePart,
  AiSdkFunctionTool,
  AiSdkMessage,
  AiSdkProviderOptions,
  AiSdkToolCallPart,
  AiSdkToolChoice,
  AiSdkToolResultOutput,
} from "./ai-sdk-types.js";
import { decodeAiSdkReasoning, decodeTargetedMetadata, isRecord } from "./reasoning-metadata.js";

/** What the mapping needs to know about the model. */
export interface AiSdkMappingContext {
  /** The provider family (`openai`, `anthropic`, `google`, ...): reasoning settings go under it. */
  family: string;
  /** `v2` or `v3`: tool-result images are written differently. */
  specificationVersion: string;
}

/**
 * Map a neutral request to AI SDK call options:
 * - system -> `{role:"system", content}` (text joined by a blank line; an image is a
 *   `validation` error); user -> text and `file` parts (images: base64 data or a URL, media type
 *   from the image, `image/*` for URLs);
 * - assistant -> `text`, `reasoning` (with the provider metadata the bridge kept, as
 *   `providerOptions`; an Anthropic signature or redacted block, from the bridge or from
 *   `AnthropicModel`, as the Anthropic package's `signature` / `redactedData`; other reasoning
 *   as plain reasoning text) and `tool-call` parts
 *   (arguments as the input object; an invalid call's as `{}`);
 * - tool -> `tool-result` parts (`text` / `json`, `error-text` for `isError`, `content` with
 *   images);
 * - tools -> `function` tools (`inputSchema`, `strict` when set); tool choice; `json` response
 *   format (with schema, name, description for `json_schema`); `maxOutputTokens`,
 *   `temperature`, `topP`, `stopSequences`, `seed`;
 * - `reasoning` -> the provider family's options (`anthropic.thinking`,
 *   `openai.reasoningEffort` / `reasoningSummary`, `google.thinkingConfig`);
 * - `providerOptions` -> AI SDK `providerOptions` (keyed by provider), merged over the above.
 * Throws a `validation` error for a tool choice naming an undeclared tool.
 */
export function toAiSdkCallOptions(request: ModelRequest, context: AiSdkMappingContext): AiSdkCallOptions {
  const options: AiSdkCallOptions = { prompt: toAiSdkPrompt(request.messages, context) };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    options.tools = tools.map((tool) => {
      const mapped: AiSdkFunctionTool = {
        type: "function",
        name: tool.name,
        description: tool.description,
        inputSchema: tool.parameters,
      };
      if (tool.strict !== undefined) mapped.strict = tool.strict;
      return mapped;
    });
  }
  if (request.toolChoice !== undefined) options.toolChoice = toolChoice(request.toolChoice, request);
  const format = request.responseFormat;
  if (format?.type === "json_object") options.responseFormat = { type: "json" };
  else if (format?.type === "json_schema") {
    options.responseFormat = { type: "json", schema: format.schema, name: format.name };
    if (format.description !== undefined) options.responseFormat.description = format.description;
  }
  if (request.maxTokens !== undefined) options.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.topP !== undefined) options.topP = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) options.stopSequences = request.stop;
  if (request.seed !== undefined) options.seed = request.seed;
  const providerOptions = mergeOptions(reasoningOptions(request, context.family), userOptions(request));
  if (providerOptions !== undefined) options.providerOptions = providerOptions;
  return options;
}

/** Map neutral messages to an AI SDK prompt (see {@link toAiSdkCallOptions}). */
export function toAiSdkPrompt(messages: readonly Message[], context: AiSdkMappingContext): AiSdkMessage[] {
  const prompt: AiSdkMessage[] = [];
  messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    switch (message.role) {
      case "system":
        prompt.push({ role: "system", content: systemText(message.content, where) });
        return;
      case "user": {
        const content: Array<{ type: "text"; text: string } | AiSdkFilePart> = [];
        for (const block of message.content) {
          if (block.type === "text") content.push({ type: "text", text: block.text });
          else if (block.type === "json") content.push({ type: "text", text: JSON.stringify(block.value) });
          else if (block.type === "image") content.push(filePart(block));
        }
        prompt.push({ role: "user", content });
        return;
      }
      case "assistant": {
        const content: Extract<AiSdkMessage, { role: "assistant" }>["content"] = [];
        // Reasoning state a provider attached to the text or to a call goes back on that part.
        let textOptions: AiSdkProviderOptions | undefined;
        const callOptions = new Map<string, AiSdkProviderOptions>();
        for (const block of message.content) {
          const targeted = block.type === "reasoning" ? decodeTargetedMetadata(block.signature) : undefined;
          if (targeted === undefined) continue;
          if ("toolCallId" in targeted.target) callOptions.set(targeted.target.toolCallId, targeted.metadata);
          else textOptions = targeted.metadata;
        }
        let textDone = false;
        for (const block of message.content) {
          if (block.type === "redacted_reasoning") {
            // Only Anthropic has redacted thinking; the package sends it back from this option.
            if (context.family === "anthropic") {
              content.push({
                type: "reasoning",
                text: "",
                providerOptions: { anthropic: { redactedData: block.data } },
              });
            }
          } else if (block.type === "reasoning") {
            const targeted = decodeTargetedMetadata(block.signature) !== undefined;
            const metadata = targeted
              ? undefined
              : (decodeAiSdkReasoning(block.signature) ?? nativeSignature(block.signature, context.family));
            if (metadata === undefined && block.text === "") continue;
            content.push(
              metadata === undefined
                ? { type: "reasoning", text: block.text }
                : { type: "reasoning", text: block.text, providerOptions: metadata },
            );
          } else if (block.type === "text" && block.text !== "") {
            content.push(
              textOptions !== undefined && !textDone
                ? { type: "text", text: block.text, providerOptions: textOptions }
                : { type: "text", text: block.text },
            );
            textDone = true;
          } else if (block.type === "json") content.push({ type: "text", text: JSON.stringify(block.value) });
        }
        for (const call of message.toolCalls) {
          const part: AiSdkToolCallPart = {
            type: "tool-call",
            toolCallId: call.id,
            toolName: call.name,
            input: call.invalid === undefined ? call.arguments : {},
          };
          const options = callOptions.get(call.id);
          if (options !== undefined) part.providerOptions = options;
          content.push(part);
        }
        prompt.push({ role: "assistant", content });
        return;
      }
      case "tool": {
        const part = {
          type: "tool-result" as const,
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: toolOutput(message, context),
        };
        // Consecutive tool results answer one assistant turn: keep them in one tool message.
        const last = prompt.at(-1);
        if (last?.role === "tool") last.content.push(part);
        else prompt.push({ role: "tool", content: [part] });
        return;
      }
    }
  });
  return prompt;
}

/**
 * A plain signature (Anthropic's, from `AnthropicModel` or from this bridge) as the Anthropic
 * package's reasoning option; other providers' plain signatures cannot be sent through the AI SDK.
 */
function nativeSignature(signature: string | undefined, family: string): AiSdkProviderOptions | undefined {
  if (family !== "anthropic" || signature === undefined || signature === "" || signature.startsWith("{")) {
    return undefined;
  }
  return { anthropic: { signature } };
}

function toolOutput(message: ToolMessage, context: AiSdkMappingContext): AiSdkToolResultOutput {
  const images = message.content.filter((block): block is ImageBlock => block.type === "image");
  const text = blocksText(message.content);
  if (images.length > 0) {
    const value: Extract<AiSdkToolResultOutput, { type: "content" }>["value"] = [];
    if (text !== "" || message.isError)
      value.push({ type: "text", text: message.isError ? `Error: ${text}` : text });
    for (const image of images) {
      if (image.source.kind !== "base64") {
        value.push({ type: "text", text: `[image: ${image.source.url}]` });
        continue;
      }
      const type = context.specificationVersion === "v2" ? "media" : "file-data";
      value.push({ type, data: image.source.data, mediaType: image.source.mimeType });
    }
    return { type: "content", value };
  }
  const only = message.content.length === 1 ? message.content[0] : undefined;
  if (only?.type === "json" && !message.isError) return { type: "json", value: only.value };
  return message.isError ? { type: "error-text", value: text } : { type: "text", value: text };
}

function filePart(block: ImageBlock): AiSdkFilePart {
  if (block.source.kind === "base64") {
    return { type: "file", data: block.source.data, mediaType: block.source.mimeType };
  }
  const url = block.source.url;
  const dataUri = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (dataUri !== null) return { type: "file", data: dataUri[2]!, mediaType: dataUri[1]! };
  return { type: "file", data: new URL(url), mediaType: "image/*" };
}

function systemText(blocks: readonly ContentBlock[], where: string): string {
  if (blocks.some((block) => block.type === "image")) {
    throw validationError(
      `${where} (system): system messages take text only; move the image to a user message`,
      {
        field: where,
      },
    );
  }
  return blocksText(blocks);
}

function blocksText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "json") parts.push(JSON.stringify(block.value));
  }
  return parts.join("\n\n");
}

function toolChoice(choice: ToolChoice, request: ModelRequest): AiSdkToolChoice {
  if (typeof choice === "string") return { type: choice };
  return { type: "tool", toolName: declaredToolChoice(choice, request) };
}

/** `request.reasoning` in the provider family's own option names. */
function reasoningOptions(request: ModelRequest, family: string): AiSdkProviderOptions | undefined {
  const reasoning = request.reasoning;
  if (reasoning === undefined) return undefined;
  switch (family) {
    case "anthropic":
      return reasoning.budgetTokens === undefined
        ? undefined
        : { anthropic: { thinking: { type: "enabled", budgetTokens: reasoning.budgetTokens } } };
    case "openai": {
      const openai: Record<string, string> = {};
      if (reasoning.effort !== undefined) openai.reasoningEffort = reasoning.effort;
      if (reasoning.summary !== undefined) openai.reasoningSummary = reasoning.summary;
      return Object.keys(openai).length === 0 ? undefined : { openai };
    }
    case "google": {
      const thinkingConfig: Record<string, number | boolean> = { includeThoughts: true };
      if (reasoning.budgetTokens !== undefined) thinkingConfig.thinkingBudget = reasoning.budgetTokens;
      return { google: { thinkingConfig } };
    }
    default:
      return reasoning.effort === undefined ? undefined : { [family]: { reasoningEffort: reasoning.effort } };
  }
}

/** `request.providerOptions`, read as AI SDK provider options (`{ anthropic: {...} }`). */
function userOptions(request: ModelRequest): AiSdkProviderOptions | undefined {
  const given = request.providerOptions;
  if (given === undefined) return undefined;
  const out: AiSdkProviderOptions = {};
  for (const [provider, entry] of Object.entries(given)) {
    if (!isRecord(entry)) {
      throw validationError(
        `providerOptions.${provider} must be an object of that provider's AI SDK options (for example { anthropic: { sendReasoning: false } })`,
        { field: `providerOptions.${provider}` },
      );
    }
    out[provider] = entry as AiSdkProviderOptions[string];
  }
  return out;
}

function mergeOptions(
  a: AiSdkProviderOptions | undefined,
  b: AiSdkProviderOptions | undefined,
): AiSdkProviderOptions | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out: AiSdkProviderOptions = { ...a };
  for (const [provider, entry] of Object.entries(b)) out[provider] = { ...out[provider], ...entry };
  return out;
}
