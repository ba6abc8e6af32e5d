import type { ContentBlock, JsonObject, JsonValue } from "@tinyagents/inference";
import type { ToolReturn } from "../tool/tool.js";

/** The parts of an MCP `CallToolResult` this mapping reads (a structural subset of the SDK type). */
export interface McpCallResult {
  content?: readonly McpContent[] | undefined;
  structuredContent?: Record<string, unknown> | undefined;
  isError?: boolean | undefined;
  /** Older servers answer `{ toolResult }` instead of `content`. */
  toolResult?: unknown;
}

/** One MCP content item (text, image, audio, resource link, embedded resource). */
export type McpContent = { type: string; [key: string]: unknown };

/**
 * Map an MCP tool result to a {@link ToolReturn}:
 * - `text` -> a text block; `image` -> an image block (base64 + MIME type);
 * - `audio` -> a text note (MIME type and size; no model here takes audio back as a tool result);
 * - `resource_link` -> a text line with its name and URI; an embedded `resource` -> its text, or a
 *   note for a binary blob;
 * - `structuredContent` -> kept verbatim in `raw`, and added as a json block when the server sent
 *   no text (servers usually mirror it as JSON text, so it is not sent twice);
 * - `isError: true` -> an error result the model sees (the loop goes on).
 */
export function mapMcpResult(result: McpCallResult): ToolReturn {
  const blocks: ContentBlock[] = [];
  for (const item of result.content ?? []) blocks.push(mapContent(item));
  const structured = toJson(result.structuredContent);
  if (structured !== undefined && !blocks.some((b) => b.type === "text"))
    blocks.push({ type: "json", value: structured });
  if (result.content === undefined && result.toolResult !== undefined) {
    const legacy = toJson(result.toolResult);
    blocks.push(
      typeof legacy === "string" ? { type: "text", text: legacy } : { type: "json", value: legacy ?? null },
    );
  }
  if (blocks.length === 0)
    blocks.push({ type: "text", text: result.isError === true ? "the tool failed" : "" });
  const out: ToolReturn = { kind: "tool_return", content: blocks, isError: result.isError === true };
  if (structured !== undefined) out.raw = { structuredContent: structured };
  return out;
}

function mapContent(item: McpContent): ContentBlock {
  const str = (key: string): string | undefined =>
    typeof item[key] === "string" ? (item[key] as string) : undefined;
  switch (item.type) {
    case "text":
      return { type: "text", text: str("text") ?? "" };
    case "image": {
      const data = str("data");
      const mimeType = str("mimeType");
      if (data !== undefined && mimeType !== undefined)
        return { type: "image", source: { kind: "base64", data, mimeType } };
      return { type: "text", text: "[image without data]" };
    }
    case "audio":
      return {
        type: "text",
        text: `[audio ${str("mimeType") ?? "unknown type"}, ${approxBytes(str("data"))} bytes, not shown]`,
      };
    case "resource_link":
      return {
        type: "text",
        text: `[resource ${str("name") ?? ""} ${str("uri") ?? ""}${str("mimeType") ? ` (${str("mimeType")})` : ""}]`.replace(
          /\s+/g,
          " ",
        ),
      };
    case "resource": {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      const uri = typeof resource.uri === "string" ? resource.uri : "";
      if (typeof resource.text === "string") return { type: "text", text: resource.text };
      const mime = typeof resource.mimeType === "string" ? resource.mimeType : "binary";
      const blob = typeof resource.blob === "string" ? resource.blob : undefined;
      return {
        type: "text",
        text: `[embedded resource ${uri} (${mime}, ${approxBytes(blob)} bytes) not shown]`,
      };
    }
    default: {
      const json = toJson(item);
      return {
        type: "text",
        text: `[unsupported MCP content ${JSON.stringify(item.type)}: ${JSON.stringify(json).slice(0, 200)}]`,
      };
    }
  }
}

function approxBytes(base64: string | undefined): number {
  return base64 === undefined ? 0 : Math.floor((base64.replace(/=+$/, "").length * 3) / 4);
}

/** A JSON-safe deep copy (drops undefined and functions), or undefined when there is nothing. */
function toJson(value: unknown): JsonValue | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return undefined;
  }
}

/** An MCP JSON Schema made safe for our registry: a plain copy, `$schema` dropped, an object at the top. */
export function mapInputSchema(schema: unknown): JsonObject {
  const copy = (toJson(schema) ?? {}) as JsonObject;
  const out: JsonObject = typeof copy === "object" && copy !== null && !Array.isArray(copy) ? copy : {};
  delete out.$schema;
  if (out.type === undefined) out.type = "object";
  if (out.type === "object" && out.properties === undefined) out.properties = {};
  return out;
}
