import { isJsonObject, type JsonObject } from "../json/json-value.js";

/** What an error body says, whatever its shape. */
export interface ErrorBodyFacts {
  /** The human-readable message, when one was found. */
  message?: string;
  /** The provider's error code (a string, or an integer code turned into a string). */
  code?: string;
  /** The provider's error type (`invalid_request_error`, `rate_limit_error`, ...). */
  type?: string;
  /** The request parameter the provider blamed (OpenAI `param`). */
  param?: string;
}

/**
 * Read the facts out of an error body in any of the shapes providers use:
 * - OpenAI and most compatible servers: `{"error":{"message","type","param","code"}}`;
 * - Anthropic: `{"type":"error","error":{"type","message"},"request_id"}`;
 * - Ollama native: `{"error":"message"}`;
 * - Mistral: top-level `{"object":"error","message","type","param","code"}`;
 * - llama.cpp: `{"error":{"code":400,"message","type":"exceed_context_size_error",...}}` (integer code);
 * - FastAPI-style validation: `{"detail":"..."}` or `{"detail":[{"msg","loc"}]}`;
 * - a one-element array around any of the above (some gateways);
 * - plain text or HTML (the text, or the HTML `<title>` / stripped text).
 * Returns `{}` for an empty body.
 */
export function errorBodyFacts(text: string): ErrorBodyFacts {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      parsed = undefined;
    }
    if (Array.isArray(parsed) && parsed.length > 0) parsed = parsed[0];
    if (isJsonObject(parsed)) return factsFromObject(parsed);
  }
  return { message: plainTextMessage(trimmed) };
}

/** Facts from an already-parsed JSON error object (also used for errors inside a 200 stream). */
export function factsFromObject(body: JsonObject): ErrorBodyFacts {
  const inner = body.error;
  if (typeof inner === "string") {
    // Ollama `{"error":"..."}`; xAI adds a top-level `code` string.
    const facts = readFields(body);
    delete facts.message;
    return withMessage(facts, inner);
  }
  if (isJsonObject(inner)) {
    const facts = readFields(inner);
    if (facts.message === undefined && typeof body.message === "string") facts.message = body.message;
    return facts;
  }
  const facts = readFields(body);
  if (facts.message === undefined) {
    const detail = body.detail;
    if (typeof detail === "string") facts.message = detail;
    else if (Array.isArray(detail)) {
      const parts: string[] = [];
      for (const item of detail) {
        if (!isJsonObject(item)) continue;
        const msg = typeof item.msg === "string" ? item.msg : undefined;
        const loc = Array.isArray(item.loc) ? item.loc.map(String).join(".") : undefined;
        if (msg !== undefined) parts.push(loc === undefined ? msg : `${loc}: ${msg}`);
      }
      if (parts.length > 0) facts.message = parts.join("; ");
    }
  }
  return facts;
}

function readFields(source: JsonObject): ErrorBodyFacts {
  const facts: ErrorBodyFacts = {};
  const message = source.message;
  if (typeof message === "string") facts.message = message;
  else if (message !== undefined && message !== null) facts.message = JSON.stringify(message);
  const type = source.type;
  if (typeof type === "string" && type !== "" && type !== "error") facts.type = type;
  const code = source.code;
  if (typeof code === "string" && code !== "") facts.code = code;
  else if (typeof code === "number" && Number.isFinite(code)) facts.code = String(code);
  const param = source.param;
  if (typeof param === "string" && param !== "") facts.param = param;
  return facts;
}

function withMessage(facts: ErrorBodyFacts, message: string): ErrorBodyFacts {
  if (message !== "") facts.message = message;
  return facts;
}

function plainTextMessage(text: string): string {
  if (/^<(?:!doctype|html|head|body|\?xml)/i.test(text) || /<\/(?:html|body|h1|title)>/i.test(text)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
    const source = title !== undefined && title.trim() !== "" ? title : text.replace(/<[^>]*>/g, " ");
    return truncate(collapse(decodeEntities(source)), 300);
  }
  return truncate(collapse(text), 500);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
