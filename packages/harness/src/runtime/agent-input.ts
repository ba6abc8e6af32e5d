import { type Message, user, validateMessages, validationError } from "@tinyagents/inference";

/** What a run accepts as input: a user prompt, one message, or several. */
export type AgentInput = string | Message | Message[];

/** Normalize input to validated messages (typed `validation` errors name the bad field). */
export function normalizeInput(input: AgentInput): Message[] {
  if (typeof input === "string") return [user(input)];
  if (input === null || input === undefined) {
    throw validationError(
      "input must be a string, a message, or an array of messages; got " + String(input),
      {
        field: "input",
      },
    );
  }
  const messages = Array.isArray(input) ? input : [input];
  validateMessages(messages);
  return messages;
}
