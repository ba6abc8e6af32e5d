import { validationError } from "../../errors/tinyagents-error.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";
import type { ContentBlock } from "../../message/content-block.js";
import type { Message } from "../../message/message.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { OllamaChatRequest, OllamaMessage, OllamaOptions } from "./wire-types.js";

/** Adapter settings that complete a request. */
export interface OllamaRequestSettings {
  /** Model name (`name:tag`). */
  model: string;
  /** Ask for an NDJSON stream. Always sent, because Ollama streams by default. */
  stream: boolean;
  /** Default `keep_alive` (a duration string such as `"10m"` or seconds); request options win. */
  keepAlive?: string | number;
  /** Default Modelfile `options` (for example `{ num_ctx: 8192 }`); request values win. */
  options?: JsonObject;
}

const DATA_URL = /^data:[^;,]+(?:;[^,]*)?;base64,(.*)$/s;

/**
 * Build the `/api/chat` body for a neutral request:
 * - messages: text and JSON blocks joined with `"\n"` into `content`; images into `images` as bare
 *   base64 (a base64 `data:` URL is unpacked; an http(s) URL is a `validation` error, because
 *   Ollama only takes inline bytes); assistant reasoning text into `thinking`; assistant tool
 *   calls into `tool_calls` (`{id, function:{name, arguments}}`, arguments as an object); tool
 *   results as `{role:"tool", content, tool_name, tool_call_id}`;
 * - `tools` -> OpenAI-style function declarations; `toolChoice: "none"` leaves them out (the
 *   native API has no tool_choice, so `required` and named choices cannot be enforced);
 * - `responseFormat` json_object -> `format: "json"`, json_schema -> `format: <schema>`;
 * - `options`: defaults, then `providerOptions.options`, then `temperature`, `top_p`, `seed`,
 *   `num_predict` (from `maxTokens`) and `stop` from the request;
 * - `reasoning` -> `think`: the effort level (`minimal` -> `low`), or `true` without one;
 * - `keep_alive` from the settings unless `providerOptions.keep_alive` sets it;
 * - other `providerOptions` keys are copied in; fields set here win over them.
 */
export function toOllamaRequest(request: ModelRequest, settings: OllamaRequestSettings): JsonObject {
  const body: OllamaChatRequest = {
    model: settings.model,
    messages: request.messages.map(toOllamaMessage),
    stream: settings.stream,
  };
  if (request.tools !== undefined && request.tools.length > 0 && request.toolChoice !== "none") {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description === "" ? {} : { description: tool.description }),
        parameters: tool.parameters,
      },
    }));
  }
  const format = request.responseFormat;
  if (format?.type === "json_object") body.format = "json";
  else if (format?.type === "json_schema") body.format = format.schema;
  const passthrough = request.providerOptions ?? {};
  const options: OllamaOptions = { ...settings.options, ...objectOrEmpty(passthrough.options) };
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.topP !== undefined) options.top_p = request.topP;
  if (request.seed !== undefined) options.seed = request.seed;
  if (request.maxTokens !== undefined) options.num_predict = request.maxTokens;
  if (request.stop !== undefined && request.stop.length > 0) options.stop = request.stop;
  if (Object.keys(options).length > 0) body.options = options;
  if (request.reasoning !== undefined) {
    const effort = request.reasoning.effort;
    body.think = effort === undefined ? true : effort === "minimal" ? "low" : effort;
  }
  const keepAlive = passthrough.keep_alive ?? settings.keepAlive;
  if (typeof keepAlive === "string" || typeof keepAlive === "number") body.keep_alive = keepAlive;
  return { ...passthrough, ...body };
}

/** Map one neutral message to an Ollama message. */
export function toOllamaMessage(message: Message, index: number): OllamaMessage {
  const texts: string[] = [];
  const thinking: string[] = [];
  const images: string[] = [];
  message.content.forEach((block, j) => {
    collect(block, `messages[${index}].content[${j}]`, texts, thinking, images);
  });
  const out: OllamaMessage = { role: message.role, content: texts.join("\n") };
  if (images.length > 0) out.images = images;
  if (message.role === "assistant") {
    if (thinking.length > 0) out.thinking = thinking.join("\n");
    if (message.toolCalls.length > 0) {
      out.tool_calls = message.toolCalls.map((call) => ({
        id: call.id,
        function: { name: call.name, arguments: call.arguments },
      }));
    }
  } else if (message.role === "tool") {
    out.tool_name = message.toolName;
    out.tool_call_id = message.toolCallId;
  }
  return out;
}

function collect(
  block: ContentBlock,
  path: string,
  texts: string[],
  thinking: string[],
  images: string[],
): void {
  switch (block.type) {
    case "text":
      if (block.text !== "") texts.push(block.text);
      return;
    case "json":
      texts.push(JSON.stringify(block.value));
      return;
    case "reasoning":
      if (block.text !== "") thinking.push(block.text);
      return;
    case "image": {
      const { source } = block;
      if (source.kind === "base64") {
        images.push(source.data);
        return;
      }
      const match = DATA_URL.exec(source.url);
      if (match === null) {
        throw validationError(
          `${path}: Ollama accepts only inline base64 images, not URLs (${source.url.slice(0, 60)}); download the image and pass { kind: "base64", data, mimeType }`,
          { field: path },
        );
      }
      images.push(match[1]!);
      return;
    }
    case "redacted_reasoning":
    case "provider_extension":
      return;
  }
}

function objectOrEmpty(value: JsonValue | undefined): JsonObject {
  return isJsonObject(value) ? value : {};
}
