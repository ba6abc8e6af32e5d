import { type ErrorCode, isErrorCode, toTinyAgentsError } from "@tinyagents/inference";

const TAG = /\[tinyagents:([a-z_]+)\] ?/;

/**
 * What a workflow throws when the harness refused a run before its loop (an input it cannot
 * read, an unknown model): DBOS stores only an error's message, so the message carries the
 * tinyagents code as a `[tinyagents:<code>]` tag, which the client's `result` turns back into
 * that code with the harness's own message ({@link untagged}).
 */
export function taggedRunError(error: unknown): Error {
  const e = toTinyAgentsError(error);
  return new Error(`[tinyagents:${e.code}] ${e.message}`, { cause: error });
}

/** The code and message of a tagged failure, or `undefined` when `message` has no tag. */
export function untagged(message: string): { code: ErrorCode; message: string } | undefined {
  const tag = TAG.exec(message);
  if (tag === null || !isErrorCode(tag[1])) return undefined;
  return { code: tag[1], message: message.slice(tag.index + tag[0].length) };
}
