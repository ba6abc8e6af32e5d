// The scripted workload every adapter plays, whatever the framework: the model asks for the
// `echo` tool S-1 times (arguments { n }), the tool returns String(n), and the model then answers
// with a final text naming how many tool calls it saw. The model decides from the LAST message of
// the conversation only (O(1) per call), so one model instance can serve many concurrent runs.

export const TOOL_NAME = "echo";
export const TOOL_DESCRIPTION = "Echo a number back.";
export const PROMPT = "go";
/** Usage reported by every fake model call (real models report usage; W5 accounts for it). */
export const USAGE = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

/** The final answer of a run of `steps` model calls. */
export function finalText(steps) {
  return `done after ${steps - 1} tool calls`;
}

/**
 * The model's next move given the value the previous tool call returned (0 before any):
 * `{ call: n }` asks for echo({ n }), `{ text }` is the final answer.
 */
export function nextStep(steps, lastValue) {
  const n = lastValue + 1;
  return n < steps ? { call: n } : { text: finalText(steps) };
}

/** Parse a tool result's text back into the number it echoed (0 when it is not a tool result). */
export function echoedValue(text) {
  const n = Number(text);
  return Number.isFinite(n) ? n : 0;
}

/** W3: every model call gives up one event-loop turn, like real I/O would. */
export function yieldTurn() {
  return new Promise((resolve) => setImmediate(resolve));
}

/** W2: the final answer is streamed as `deltas` pieces of this text. */
export const DELTA = "ab";

export function streamedText(deltas) {
  return DELTA.repeat(deltas);
}

/** Call counters shared by a fake model and its tool; the workloads check them exactly. */
export function newCounters() {
  return { model: 0, tool: 0 };
}
