import { isJsonObject, validateMessage, validationError } from "@tinyagents/inference";
import type { SteeringCommand, SteeringCommandKind } from "../contracts/steering-command.js";

export type { SteeringCommand, SteeringCommandKind } from "../contracts/steering-command.js";

/** Every command kind, in a stable order. */
export const STEERING_COMMAND_KINDS: readonly SteeringCommandKind[] = [
  "pause",
  "resume",
  "cancel",
  "injectMessage",
  "redirect",
  "setMetadata",
];

/** The prefix of the message a `redirect` command appends. */
export const REDIRECT_PREFIX = "[steering:redirect] ";

/**
 * Check that `value` is a well-formed steering command (kind known, fields of the right type,
 * an injected message valid) and return it. Throws a `validation` error naming the bad field.
 */
export function validateSteeringCommand(value: unknown): SteeringCommand {
  if (!isJsonObject(value) || typeof value.kind !== "string") {
    throw validationError(
      `a steering command must be an object with a \`kind\` (one of ${STEERING_COMMAND_KINDS.join(", ")})`,
      { field: "kind" },
    );
  }
  const command = value as unknown as SteeringCommand;
  switch (command.kind) {
    case "pause":
    case "cancel":
      if (command.reason !== undefined && typeof command.reason !== "string") {
        throw validationError(`steering command "${command.kind}": reason must be a string`, {
          field: "reason",
        });
      }
      return command;
    case "resume":
      return command;
    case "injectMessage":
      validateMessage(command.message, "command.message");
      return command;
    case "redirect":
      if (typeof command.instruction !== "string" || command.instruction.trim() === "") {
        throw validationError('steering command "redirect" needs a non-empty `instruction` string', {
          field: "instruction",
        });
      }
      return command;
    case "setMetadata":
      if (!isJsonObject(command.metadata)) {
        throw validationError('steering command "setMetadata" needs a `metadata` JSON object', {
          field: "metadata",
        });
      }
      return command;
    default:
      throw validationError(
        `unknown steering command kind "${String((value as { kind: unknown }).kind)}"; expected one of ${STEERING_COMMAND_KINDS.join(", ")}`,
        { field: "kind" },
      );
  }
}
