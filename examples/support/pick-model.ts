import { type ChatModel, fromEnv } from "@tinyagents/inference";

/**
 * The model an example runs with: a real one when `TINYAGENTS_MODEL` is set (with its API key),
 * else the offline scripted model the example brings. Says which, in one line.
 */
export function pickModel(offline: () => ChatModel): { model: ChatModel; live: boolean } {
  const spec = process.env.TINYAGENTS_MODEL;
  if (spec !== undefined && spec.trim() !== "") {
    console.log(`[live model: ${spec}]`);
    return { model: fromEnv(), live: true };
  }
  console.log(
    "[offline: a scripted model plays the LLM; set TINYAGENTS_MODEL=provider:model for a real one]",
  );
  return { model: offline(), live: false };
}
