/**
 * Phrases providers use when a prompt does not fit the model's context window
 * (OpenAI, Anthropic, Gemini, Ollama, vLLM and OpenAI-compatible servers).
 */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /too many tokens/i,
  /context window/i,
  /input is too long/i,
  /exceeds? the (?:model'?s? )?(?:maximum )?context/i,
  /input token count .* exceeds/i,
];

/** Provider error codes that mean "the prompt is too long". */
const OVERFLOW_CODES: ReadonlySet<string> = new Set(["context_length_exceeded", "string_above_max_length"]);

/**
 * True when an error message says the prompt overflowed the model's context window
 * (for example "This model's maximum context length is 8192 tokens" or "prompt is too long").
 */
export function isContextOverflowMessage(text: string | undefined): boolean {
  if (text === undefined || text === "") return false;
  for (const pattern of OVERFLOW_PATTERNS) if (pattern.test(text)) return true;
  return false;
}

/** True when a provider error code means the prompt overflowed the context window. */
export function isContextOverflowCode(code: string | undefined): boolean {
  return code !== undefined && (OVERFLOW_CODES.has(code) || isContextOverflowMessage(code));
}
