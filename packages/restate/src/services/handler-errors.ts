import { TerminalError } from "@restatedev/restate-sdk";
import { type ErrorCode, isErrorCode, TinyAgentsError } from "@tinyagents/inference";

/**
 * Errors the agent workflow's handlers answer with. Restate hands the client only an HTTP status
 * and a message, so the message carries the tinyagents code as a `[tinyagents:<code>]` tag (as a
 * retryable step failure does) and the client turns it back into that code with the harness's
 * own message (`errorFromIngress`); the HTTP status is the closest one to the code.
 */
export function handlerError(code: ErrorCode, message: string): TerminalError {
  return new TerminalError(`[tinyagents:${code}] ${message}`, { errorCode: httpStatusOf(code) });
}

/** A failure before or outside the loop (bad input, bad options, an unknown model): terminal, with its code and message. */
export function asTerminal(error: unknown): TerminalError {
  if (error instanceof TerminalError) return error;
  const code = TinyAgentsError.isInstance(error) ? error.code : "internal";
  return handlerError(code, error instanceof Error ? error.message : String(error));
}

const TAG = /^\[tinyagents:([a-z_]+)\] ?/;

/**
 * The code and message a handler put in a terminal error's message (see {@link handlerError}),
 * or `undefined` when the message has no tag (Restate's own errors).
 */
export function taggedFailure(message: string): { code: ErrorCode; message: string } | undefined {
  const tag = TAG.exec(message);
  if (tag === null || !isErrorCode(tag[1])) return undefined;
  return { code: tag[1], message: message.slice(tag[0].length) };
}

/** The HTTP status an ingress caller sees for `code`. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case "validation":
    case "serialization":
      return 400;
    case "steering":
      return 403;
    case "not_found":
    case "model_not_found":
    case "tool_not_found":
      return 404;
    case "conflict":
      return 409;
    case "limit_exceeded":
      return 429;
    case "unavailable":
      return 503;
    default:
      return 500;
  }
}
