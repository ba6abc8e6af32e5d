import { ProviderError } from "@tinyagents/inference";

/** Statuses servers use to refuse a request field. */
const STATUSES = new Set([400, 422, 500, 501]);
/** The failure is about tools / function calling. */
const MENTIONS_TOOLS =
  /\btools?\b|tool[_ ]?(?:choice|call(?:ing|s)?)|\bfunctions?\b|function[_ ]?call(?:ing|s)?/i;
/** ...and says they are not supported (rather than, say, a malformed schema). */
const REFUSES =
  /not supported|unsupported|does(?: not|n't) support|not support|requires? (?:the )?--|--jinja|--enable-auto-tool-choice|unrecogni[sz]ed|unknown (?:field|parameter|argument|param|name)|not (?:permitted|allowed|available|enabled)|extra (?:inputs|fields)|unexpected (?:keyword|field|parameter|argument)/i;

/**
 * True when `error` is an endpoint refusing native tool calling: a `ProviderError` with status
 * 400/422 (or 500/501, which some local servers use) whose message or body mentions tools or
 * function calling AND says they are unsupported, unknown or need a server flag. Examples:
 * Ollama's "model does not support tools", vLLM's "auto tool choice requires
 * --enable-auto-tool-choice", llama.cpp's "tools param requires --jinja flag", "Unrecognized
 * request argument supplied: tools", FastAPI's "Extra inputs are not permitted" at `body.tools`,
 * DeepSeek's "does not support Function Calling". A malformed tool schema ("Invalid
 * 'tools[0].function.name'") is NOT a refusal: retrying without tools would hide a real bug.
 */
export function isToolsUnsupportedError(error: unknown): boolean {
  if (!ProviderError.isProviderError(error)) return false;
  if (error.status === undefined || !STATUSES.has(error.status)) return false;
  const said = `${error.message}\n${error.rawBody ?? ""}`;
  return MENTIONS_TOOLS.test(said) && REFUSES.test(said);
}
